import BridgeProtocol
import BridgeStore
import Testing

@testable import BridgeHub

@Suite struct EventCoreTests {
    private func entry(_ seq: Int64, _ threadId: String) -> JournalEntry {
        JournalEntry(seq: seq, threadId: threadId, kind: "event", type: "item/agentMessage/delta", text: "f\(seq)")
    }

    @Test func seqsContinueAfterTheJournalsLast() {
        var core = EventCore(lastSeq: 41, maxHeldFrames: 8)
        #expect(core.nextSeq() == 42)
        #expect(core.nextSeq() == 43)
        #expect(core.lastSeq == 43)
    }

    @Test func outsideABatchEachMessageIsWrittenAndDeliveredAtOnce() {
        var core = EventCore(lastSeq: 0, maxHeldFrames: 8)
        core.fanOut.subscribe(1, to: "t")
        let seq = core.nextSeq()
        let written = core.publish(entry(seq, "t"))
        #expect(written?.entries.map(\.seq) == [1])
        #expect(written?.actions == [.send("f1", to: 1)])
    }

    @Test func aBatchIsJournaledTogetherThenDeliveredInOrder() {
        var core = EventCore(lastSeq: 0, maxHeldFrames: 8)
        core.fanOut.subscribe(1, to: "t")
        core.fanOut.subscribe(2, to: "*")
        core.beginBatch()
        #expect(core.isBatching)
        for threadId in ["t", "u", "t"] {
            let seq = core.nextSeq()
            #expect(core.publish(entry(seq, threadId)) == nil)
        }
        let written = core.endBatch()
        #expect(!core.isBatching)
        #expect(written?.entries.map(\.seq) == [1, 2, 3])
        #expect(
            written?.actions == [.send("f1", to: 1), .send("f1", to: 2), .send("f2", to: 2), .send("f3", to: 1), .send("f3", to: 2)])
        #expect(core.endBatch() == nil)  // nothing left over
    }

    @Test func aSubscriptionTakenDuringTheBatchGetsItsFramesAtTheEnd() {
        // The batch's frames are routed when it ends: a session subscribed meanwhile (in the same actor step,
        // its seam is `lastSeq` at that point) gets the frames numbered after its seam live.
        var core = EventCore(lastSeq: 0, maxHeldFrames: 8)
        core.beginBatch()
        let seq = core.nextSeq()
        _ = core.publish(entry(seq, "t"))
        core.fanOut.subscribe(7, to: "t")
        #expect(core.endBatch()?.actions == [.send("f1", to: 7)])
    }

    @Test func heldSessionsGetTheirFramesOnRelease() {
        var core = EventCore(lastSeq: 0, maxHeldFrames: 2)
        core.fanOut.subscribe(1, to: "t")
        core.fanOut.hold(1)
        for _ in 0..<2 {
            let seq = core.nextSeq()
            #expect(core.publish(entry(seq, "t"))?.actions == [])
        }
        let seq = core.nextSeq()
        // A third held frame passes the limit: the session is a slow reader.
        #expect(core.publish(entry(seq, "t"))?.actions == [.closeSlowReader(1)])
    }

    @Test func pacingNamesEachSessionOnceUntilTaken() {
        var core = EventCore(lastSeq: 0, maxHeldFrames: 8)
        core.delivered(to: 3)
        core.delivered(to: 3)
        core.delivered(to: 5)
        #expect(core.takePaced() == [3, 5])
        #expect(core.takePaced().isEmpty)
    }

    @Test func resumeIsAGapForACursorPastTheEndOrBeforeThePrunedPart() {
        var core = EventCore(lastSeq: 0, maxHeldFrames: 8)
        for _ in 0..<10 { _ = core.nextSeq() }
        #expect(core.resumeStatus(after: 10, prunedThrough: 0) == .ok)
        #expect(core.resumeStatus(after: 11, prunedThrough: 0) == .gap)  // another bridge's cursor
        #expect(core.resumeStatus(after: 3, prunedThrough: 5) == .gap)
        #expect(core.resumeStatus(after: 5, prunedThrough: 5) == .ok)
    }
}
