import BridgeHub
import Eventually
import NIOCore
import NIOWebSocket
import Synchronization
import Testing

@testable import BridgeServer

@Suite struct OutboxTests {
    static let bye = CloseRequest(code: 1001, reason: "bye", ending: .awaitPeer(.seconds(3)))

    @Test func drainsInOrderThenTheCloseFinishesIt() {
        let outbox = Outbox(capacity: 4)
        #expect(outbox.enqueue("a") == .enqueued)
        #expect(outbox.enqueue(.pong, ByteBuffer(string: "p")))
        #expect(outbox.enqueue("b") == .enqueued)
        #expect(outbox.enqueueClose(Self.bye))
        #expect(!outbox.enqueueClose(CloseRequest(code: 1000, ending: .now)))  // only the first close counts
        #expect(outbox.enqueue("late") == .closed)
        #expect(!outbox.enqueue(.ping, ByteBuffer()))
        #expect(outbox.take(limit: 2) == [.text("a"), .frame(.pong, ByteBuffer(string: "p"))])
        #expect(outbox.take(limit: 10) == [.text("b"), .close(Self.bye)])
        #expect(outbox.take(limit: 10) == [])
        #expect(!outbox.replaceWithClose(CloseRequest(code: 1002, ending: .now)))  // the close is written
    }

    @Test func overflowCountsTextFramesOnly() {
        let outbox = Outbox(capacity: 2)
        #expect(outbox.enqueue("1") == .enqueued)
        #expect(outbox.enqueue("2") == .enqueued)
        #expect(outbox.enqueue(.ping, ByteBuffer()))  // control frames are never refused for room
        #expect(outbox.enqueue("3") == .overflow)
        #expect(outbox.count == 2)
        _ = outbox.take(limit: 1)
        #expect(outbox.enqueue("4") == .closed)  // room again, but nothing after a dropped frame is sent
    }

    /// Issue 44: a linked machine's frames may be megabytes each, so the queue is bounded in bytes too; one
    /// frame larger than the limit still goes into an empty queue.
    @Test func overflowCountsBytes() {
        let outbox = Outbox(capacity: 100, maxBytes: 10)
        #expect(outbox.enqueue(String(repeating: "x", count: 50)) == .enqueued)
        #expect(outbox.bytes == 50)
        _ = outbox.take(limit: 1)
        #expect(outbox.bytes == 0)
        #expect(outbox.enqueue("123456") == .enqueued)
        #expect(outbox.enqueue("12345") == .overflow)
        #expect(outbox.count == 1 && outbox.bytes == 6)
    }

    @Test func replaceWithCloseDropsWhatWaits() {
        let outbox = Outbox(capacity: 8)
        _ = outbox.enqueue("1")
        outbox.enqueueClose(Self.bye)
        let overflow = CloseRequest(code: 1013, reason: "full", ending: .after(.milliseconds(200)))
        #expect(outbox.replaceWithClose(overflow))
        #expect(outbox.count == 0)
        #expect(outbox.take(limit: 10) == [.close(overflow)])
    }

    @Test func wakesOnlyAnIdleOutbox() {
        let outbox = Outbox(capacity: 8)
        let wakes = Atomic<Int>(0)
        #expect(outbox.enqueue("early") == .enqueued)
        outbox.attach(wake: { wakes.add(1, ordering: .relaxed) })
        #expect(wakes.load(ordering: .relaxed) == 1)  // frames queued before the writer was attached
        #expect(outbox.enqueue("x") == .enqueued)
        #expect(wakes.load(ordering: .relaxed) == 1)  // a drain is already under way
        #expect(outbox.take(limit: 1) == [.text("early")])
        #expect(outbox.enqueue("y") == .enqueued)
        #expect(wakes.load(ordering: .relaxed) == 1)  // still draining: frames were left
        #expect(outbox.take(limit: 10) == [.text("x"), .text("y")])
        #expect(outbox.enqueue("z") == .enqueued)
        #expect(wakes.load(ordering: .relaxed) == 2)  // idle again: woken
    }

    @Test func aPacedProducerWakesWhenTheQueueShrinksOrEnds() async throws {
        let outbox = Outbox(capacity: 8)
        for text in ["1", "2", "3"] { _ = outbox.enqueue(text) }
        async let room: Void = outbox.waitUntilQueued(atMost: 1)
        try await eventually("the producer waits") { outbox.hasWaiter }
        _ = outbox.take(limit: 2)
        await room
        let other = Outbox(capacity: 4)
        _ = other.enqueue("x")
        async let ended: Void = other.waitUntilQueued(atMost: 0)
        try await eventually("the producer waits") { other.hasWaiter }
        other.finish()
        await ended
        #expect(other.enqueue("y") == .closed)
    }

    /// The hub's pacing gives up waiting after a moment: a cancelled wait returns at once, and a later wait on
    /// the same outbox is not disturbed by it.
    @Test func aCancelledWaitReturnsAndLeavesTheNextWaiterAlone() async throws {
        let outbox = Outbox(capacity: 8)
        for text in ["1", "2", "3"] { _ = outbox.enqueue(text) }
        let waiting = Task { await outbox.waitUntilQueued(atMost: 0) }
        try await eventually("the first producer waits") { outbox.hasWaiter }
        waiting.cancel()
        await waiting.value  // before the fix to cancellation, this never returned
        #expect(!outbox.hasWaiter)
        async let later: Void = outbox.waitUntilQueued(atMost: 1)
        try await eventually("the second producer waits") { outbox.hasWaiter }
        _ = outbox.take(limit: 2)
        await later
        #expect(outbox.count == 1)
    }

    /// The connection that drains an outbox holds it, and the outbox holds the connection's wake: finishing the
    /// outbox must break that cycle, or every closed connection stays in memory (seen leaking before).
    @Test func finishLetsGoOfTheWake() {
        final class Drain: Sendable {}
        weak var weakDrain: Drain?
        let outbox = Outbox(capacity: 4)
        do {
            let drain = Drain()
            weakDrain = drain
            outbox.attach(wake: { _ = drain })
        }
        #expect(weakDrain != nil)
        outbox.finish()
        #expect(weakDrain == nil)
    }
}
