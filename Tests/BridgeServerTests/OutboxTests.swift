import Synchronization
import Testing

@testable import BridgeServer

@Suite struct OutboxTests {
    @Test func drainsInOrderThenHandsOverTheClose() async {
        let outbox = Outbox(capacity: 4)
        #expect(outbox.enqueue("a") == .enqueued)
        #expect(outbox.enqueue("b") == .enqueued)
        outbox.enqueueClose(code: 1001, reason: "bye")
        #expect(outbox.enqueue("late") == .closed)
        #expect(outbox.take(limit: 1) == .init(frames: ["a"]))
        #expect(outbox.take(limit: 10) == .init(frames: ["b"], close: .close(code: 1001, reason: "bye")))
        outbox.closeWritten()
        #expect(await outbox.closeReached() == .close(code: 1001, reason: "bye"))
        #expect(outbox.take(limit: 10) == .init())
    }

    @Test func overflowIsReportedNotBuffered() {
        let outbox = Outbox(capacity: 2)
        #expect(outbox.enqueue("1") == .enqueued)
        #expect(outbox.enqueue("2") == .enqueued)
        #expect(outbox.enqueue("3") == .overflow)
        #expect(outbox.count == 2)
    }

    @Test func wakesOnlyAnIdleOutbox() {
        let outbox = Outbox(capacity: 8)
        let wakes = Atomic<Int>(0)
        #expect(outbox.enqueue("early") == .enqueued)
        outbox.attach(wake: { wakes.add(1, ordering: .relaxed) })
        #expect(wakes.load(ordering: .relaxed) == 1)  // frames queued before the writer was attached
        #expect(outbox.enqueue("x") == .enqueued)
        #expect(wakes.load(ordering: .relaxed) == 1)  // a drain is already under way
        #expect(outbox.take(limit: 1) == .init(frames: ["early"]))
        #expect(outbox.enqueue("y") == .enqueued)
        #expect(wakes.load(ordering: .relaxed) == 1)  // still draining: frames were left
        #expect(outbox.take(limit: 10) == .init(frames: ["x", "y"]))
        #expect(outbox.enqueue("z") == .enqueued)
        #expect(wakes.load(ordering: .relaxed) == 2)  // idle again: woken
    }

    @Test func closeWaitsForTheFramesBeforeItAndFinishEnds() async {
        let outbox = Outbox(capacity: 4)
        async let reached = outbox.closeReached()
        try? await Task.sleep(for: .milliseconds(20))
        outbox.enqueueClose(code: 1000, reason: "done")
        #expect(outbox.take(limit: 4).close == .close(code: 1000, reason: "done"))
        outbox.closeWritten()
        #expect(await reached == .close(code: 1000, reason: "done"))
        let other = Outbox(capacity: 4)
        other.finish()
        #expect(await other.closeReached() == nil)
        #expect(other.enqueue("x") == .closed)
    }
}
