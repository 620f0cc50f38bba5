import Testing

@testable import BridgeServer

@Suite struct OutboxTests {
    @Test func deliversInOrderThenClose() async {
        let outbox = Outbox(capacity: 4)
        #expect(outbox.enqueue("a") == .enqueued)
        #expect(outbox.enqueue("b") == .enqueued)
        outbox.enqueueClose(code: 1001, reason: "bye")
        #expect(outbox.enqueue("late") == .closed)
        #expect(await outbox.next() == .text("a"))
        #expect(await outbox.next() == .text("b"))
        #expect(await outbox.next() == .close(code: 1001, reason: "bye"))
    }

    @Test func overflowIsReportedNotBuffered() {
        let outbox = Outbox(capacity: 2)
        #expect(outbox.enqueue("1") == .enqueued)
        #expect(outbox.enqueue("2") == .enqueued)
        #expect(outbox.enqueue("3") == .overflow)
        #expect(outbox.count == 2)
    }

    @Test func waitingReaderIsWokenAndFinishEnds() async {
        let outbox = Outbox(capacity: 2)
        async let first = outbox.next()
        try? await Task.sleep(for: .milliseconds(20))
        #expect(outbox.enqueue("x") == .enqueued)
        #expect(await first == .text("x"))
        outbox.finish()
        #expect(await outbox.next() == nil)
    }
}
