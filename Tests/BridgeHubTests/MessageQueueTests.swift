import BridgeProtocol
import BridgeStore
import Testing

@testable import BridgeHub

/// The queue of follow-ups, without sockets or Codex.
@Suite struct MessageQueueTests {
    let policy = TurnPolicy(sandbox: "workspace-write", approvalPolicy: "on-request")

    func entry(_ id: String, thread: String = "t1", seq: Int64) -> MessageQueue.Entry {
        MessageQueue.Entry(announcement: MessageQueued(seq: seq, threadId: thread, queuedId: id, text: "text \(id)"), policy: policy)
    }

    @Test func anEntryIsStoredWithItsPolicyAndComesBackTheSame() {
        let held = entry("q1", seq: 4)
        #expect(held.stored.sandbox == "workspace-write" && held.stored.approvalPolicy == "on-request")
        #expect(MessageQueue.Entry(stored: held.stored) == held)
    }

    @Test func firstInFirstOutOnePerTurnEnd() throws {
        var queue = MessageQueue()
        try queue.enqueue(entry("a", seq: 1))
        try queue.enqueue(entry("b", seq: 2))
        try queue.enqueue(entry("x", thread: "t2", seq: 3))
        #expect(queue.isBusy("t1") && !queue.isBusy("t3"))
        #expect(queue.next(for: "t1")?.queuedId == "a")
        // While "a" starts, another turn end (say a stale one) starts nothing.
        #expect(queue.next(for: "t1") == nil)
        #expect(queue.isBusy("t1"))
        queue.finishedStarting("t1")
        #expect(queue.next(for: "t1")?.queuedId == "b")
        queue.finishedStarting("t1")
        #expect(queue.next(for: "t1") == nil && !queue.isBusy("t1"))
        #expect(queue.entries(of: "t2").map(\.queuedId) == ["x"])
    }

    @Test func aTurnThatEndsBeforeItsStartIsAnsweredLetsTheNextOneGo() throws {
        var queue = MessageQueue()
        try queue.enqueue(entry("a", seq: 1))
        try queue.enqueue(entry("b", seq: 2))
        #expect(queue.next(for: "t1", endedTurn: "turn-0")?.queuedId == "a")
        // "a" became turn-1 and ended before Codex answered its turn/start.
        #expect(queue.next(for: "t1", endedTurn: "turn-1") == nil)
        let endedAlready = queue.finishedStarting("t1", turnId: "turn-1")
        #expect(endedAlready)
        #expect(queue.next(for: "t1")?.queuedId == "b")
        // An unrelated end while starting does not count for the turn that starts.
        #expect(queue.next(for: "t1", endedTurn: "turn-x") == nil)
        let unrelated = queue.finishedStarting("t1", turnId: "turn-2")
        #expect(!unrelated)
    }

    @Test func cancelTakesOnlyWhatHasNotStarted() throws {
        var queue = MessageQueue()
        try queue.enqueue(entry("a", seq: 1))
        try queue.enqueue(entry("b", seq: 2))
        #expect(queue.cancel("b", on: "t2") == nil)
        #expect(queue.cancel("b", on: "t1")?.queuedId == "b")
        #expect(queue.cancel("b", on: "t1") == nil)
        _ = queue.next(for: "t1")
        #expect(queue.cancel("a", on: "t1") == nil)
    }

    @Test func boundedPerThreadAndNothingLostWhenCodexIsAway() throws {
        var queue = MessageQueue(maxPerThread: 2)
        try queue.enqueue(entry("a", seq: 1))
        try queue.enqueue(entry("b", seq: 3))
        #expect(throws: MessageQueue.Refusal.full) { try queue.enqueue(entry("c", seq: 4)) }
        try queue.enqueue(entry("x", thread: "t2", seq: 2))
        #expect(queue.all.map(\.queuedId) == ["a", "x", "b"])
        // A start that fails because Codex is away puts the message back, first in line.
        let taken = queue.next(for: "t1")
        let first = try #require(taken)
        #expect(queue.threadsWaiting == ["t1", "t2"].filter { $0 != "t1" } || queue.threadsWaiting == ["t2"])
        queue.putBack(first)
        #expect(queue.entries(of: "t1").map(\.queuedId) == ["a", "b"] && queue.threadsWaiting == ["t1", "t2"])
        // Restored after a restart in the order they were queued.
        var restarted = MessageQueue(maxPerThread: 2)
        restarted.restore(queue.all)
        #expect(restarted.all.map(\.queuedId) == ["a", "x", "b"])
        let next = restarted.next(for: "t1")
        #expect(next?.queuedId == "a")
    }

    @Test func reorderNamesEveryWaitingMessageOnceAndEditKeepsThePlace() throws {
        var queue = MessageQueue()
        for (id, seq) in [("a", 1), ("b", 2), ("c", 3)] { try queue.enqueue(entry(id, seq: Int64(seq))) }
        try queue.reorder(["c", "a", "b"], on: "t1")
        #expect(queue.entries(of: "t1").map(\.queuedId) == ["c", "a", "b"])
        // A list missing one, naming one twice or naming a stranger changes nothing.
        for wrong in [["c", "a"], ["c", "a", "a"], ["c", "a", "z"], ["c", "a", "b", "b"]] {
            #expect(throws: MessageQueue.Refusal.notTheWaitingMessages) { try queue.reorder(wrong, on: "t1") }
        }
        #expect(queue.entries(of: "t1").map(\.queuedId) == ["c", "a", "b"])
        #expect(queue.edit("a", on: "t1", text: "new a")?.announcement.text == "new a")
        #expect(queue.edit("a", on: "t2", text: "x") == nil && queue.edit("zz", on: "t1", text: "x") == nil)
        #expect(queue.items(of: "t1").map(\.text) == ["text c", "new a", "text b"])
        // The next turn takes the first in the new order; one that is starting can be neither moved nor edited.
        #expect(queue.next(for: "t1")?.queuedId == "c")
        #expect(queue.edit("c", on: "t1", text: "late") == nil)
        #expect(throws: MessageQueue.Refusal.notTheWaitingMessages) { try queue.reorder(["c", "b", "a"], on: "t1") }
        try queue.reorder(["b", "a"], on: "t1")
        queue.finishedStarting("t1")
        #expect(queue.next(for: "t1")?.announcement.text == "text b")
    }
}
