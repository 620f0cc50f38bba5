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

/// Issue 44, item 1: seqs come from the network. A negative one is refused (a bridge numbers from 1), however
/// many come, and the window stays right at both ends of the range.
@Suite struct SeqTrackerRangeTests {
    @Test func negativeSeqsAreRefusedAtBothEndsOfTheRange() {
        var tracker = SeqTracker(window: 4)
        #expect(!tracker.accept(-1) && !tracker.accept(.min))
        #expect(tracker.cursor == nil)
        var bottom = SeqTracker(window: 4)
        let refused = (1...10).map { !bottom.accept(Int64.min + Int64($0)) }
        #expect(refused.allSatisfy { $0 })
        var near = SeqTracker(cursor: nil, window: 4)
        let accepted = (0..<10).map { near.accept(Int64.max - $0) }
        #expect(accepted.allSatisfy { $0 } && near.cursor == .max)
        var low = SeqTracker(window: 4)
        #expect((0..<10).allSatisfy { low.accept(Int64($0)) })
    }

    @Test func aNegativeServerLastSeqIsNotAdopted() {
        var tracker = SeqTracker()
        tracker.adopt(serverLastSeq: -5)
        #expect(tracker.cursor == nil)
        tracker.restart(at: -5)
        #expect(tracker.cursor == nil)
    }
}
