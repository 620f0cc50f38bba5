import Testing

@testable import BridgeClient

@Suite struct SeqTrackerTests {
    @Test func dropsDuplicatesAndTracksHighest() {
        var tracker = SeqTracker()
        tracker.adopt(serverLastSeq: 10)
        #expect(tracker.cursor == 10)
        let accepted = [tracker.accept(12), tracker.accept(11), tracker.accept(12)]
        #expect(accepted == [true, true, false])
        #expect(tracker.cursor == 12)
        tracker.adopt(serverLastSeq: 50)
        #expect(tracker.cursor == 12, "a later helloAck does not move a cursor that exists")
        tracker.restart(at: 60)
        let again = tracker.accept(12)
        #expect(tracker.cursor == 60 && again)
    }

    @Test func windowIsBounded() {
        var tracker = SeqTracker(window: 100)
        let fresh = (1...1000).allSatisfy { tracker.accept(Int64($0)) }
        let repeated = [tracker.accept(1000), tracker.accept(990)]
        #expect(fresh && repeated == [false, false])
        #expect(tracker.cursor == 1000)
    }
}
