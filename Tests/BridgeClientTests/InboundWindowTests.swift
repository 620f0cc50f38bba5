import Eventually
import Synchronization
import Testing

@testable import BridgeClient

/// Issue 44, item 2: the inbound window holds the reader while the bytes it handed on are not given back.
@Suite(.timeLimit(.minutes(1))) struct InboundWindowTests {
    @Test func theReaderWaitsForRoomThenGoesOn() async throws {
        let window = InboundWindow(limit: 10)
        await window.acquire(6)
        await window.acquire(4)
        #expect(window.held == 10 && !window.isPaused)
        let third = Task { await window.acquire(3) }
        try await eventually("the reader waits") { window.isPaused }
        window.release(2)
        #expect(window.isPaused, "8 + 3 still does not fit")
        window.release(6)
        await third.value
        #expect(window.held == 5 && window.peak == 10 && window.pauses == 1)
    }

    @Test func oneMessageLargerThanTheWindowPassesAlone() async {
        let window = InboundWindow(limit: 10)
        await window.acquire(50)
        #expect(window.held == 50)
        window.release(50)
        #expect(window.held == 0)
    }

    @Test func closingOrCancellingLetsTheReaderGo() async throws {
        let window = InboundWindow(limit: 1)
        await window.acquire(1)
        let waiting = Task { await window.acquire(1) }
        try await eventually("the reader waits") { window.isPaused }
        window.close()
        await waiting.value
        await window.acquire(100)  // closed: nothing waits again
        let other = InboundWindow(limit: 1)
        await other.acquire(1)
        let cancelled = Task { await other.acquire(1) }
        try await eventually("the reader waits") { other.isPaused }
        cancelled.cancel()
        await cancelled.value
    }
}
