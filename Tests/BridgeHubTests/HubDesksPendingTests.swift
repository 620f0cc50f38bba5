import BridgeProtocol
import CodexControl
import Testing

@testable import BridgeHub

/// What a late subscriber gets from the desks, without a hub: questions, then held messages, then each line.
@Suite struct HubDesksPendingTests {
    @Test func aLateSubscriberGetsTheThreadsQuestionsHeldMessagesAndLineInThatOrder() throws {
        var desks = HubDesks()
        let policy = TurnPolicy(sandbox: "workspace-write", approvalPolicy: "on-request")
        desks.questions.asked(
            InputRequest(seq: 4, requestId: "in-1", threadId: "t", type: "userInput"), codexId: CodexRequestID(generation: 1, value: 1))
        desks.questions.asked(
            InputRequest(seq: 5, requestId: "in-2", threadId: "u", type: "userInput"), codexId: CodexRequestID(generation: 1, value: 2))
        for (seq, id, thread) in [(Int64(2), "q-1", "t"), (3, "q-2", "u")] {
            try desks.queue.enqueue(
                MessageQueue.Entry(announcement: MessageQueued(seq: seq, threadId: thread, queuedId: id, text: id), policy: policy))
        }
        desks.queue.changes["t"] = QueueChanged(seq: 6, threadId: "t", items: desks.queue.items(of: "t"))
        #expect(desks.pendingExtras(on: "t").map(\.kind) == ["inputRequest", "messageQueued", "queueChanged"])
        #expect(desks.pendingExtras(on: "t").compactMap(\.seq) == [4, 2, 6])
        #expect(desks.pendingExtras(on: "*").compactMap(\.seq) == [4, 5, 2, 3, 6])
        #expect(desks.pendingExtras(on: "v").isEmpty)
    }
}
