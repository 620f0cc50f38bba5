import Synchronization

/// How many bytes of received text a connection may hold that its reader has not finished with: the
/// transport reads no further message while the window is full, so a server that sends faster than the client
/// handles what it sent is paused by TCP's back-pressure instead of growing the client's memory (issue 44: a
/// linked bridge's flood raised the home bridge's memory by 725 MiB).
///
/// The transport ``acquire(_:)``s a message's bytes before handing it on; whoever finishes with it
/// ``release(_:)``s them (``BridgeConnection/consumed(bytes:)``). One message larger than the whole window is
/// let through when nothing else is held (the message size cap bounds it). Counts are kept for tests and
/// metrics: ``held`` now and ``peak`` since the window was made.
public final class InboundWindow: Sendable {
    private struct State {
        var held = 0
        var peak = 0
        var pauses = 0
        var closed = false
        var waiter: (bytes: Int, continuation: CheckedContinuation<Void, Never>)?

        mutating func takeWaiterIfRoom(limit: Int) -> CheckedContinuation<Void, Never>? {
            guard let waiter, closed || held == 0 || held + waiter.bytes <= limit else { return nil }
            self.waiter = nil
            held += closed ? 0 : waiter.bytes
            peak = max(peak, held)
            return waiter.continuation
        }
    }

    /// The most bytes held at once (a single larger message excepted).
    public let limit: Int
    private let state = Mutex(State())

    public init(limit: Int) {
        self.limit = limit
    }

    /// Bytes held now.
    public var held: Int { state.withLock { $0.held } }
    /// The most bytes ever held at once.
    public var peak: Int { state.withLock { $0.peak } }
    /// Whether the reader waits for room now (the connection is paused).
    public var isPaused: Bool { state.withLock { $0.waiter != nil } }
    /// How many times the reader had to wait for room.
    public var pauses: Int { state.withLock { $0.pauses } }

    /// Waits until `bytes` more fit, then holds them. Returns at once after ``close()`` or when the task is
    /// cancelled (the connection is going away: nothing is held then).
    public func acquire(_ bytes: Int) async {
        // The common case, room at once, without a continuation (this runs for every message a link receives).
        let taken = state.withLock { state in
            guard !state.closed, state.held == 0 || state.held + bytes <= limit else { return state.closed }
            state.held += bytes
            state.peak = max(state.peak, state.held)
            return true
        }
        if taken { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now: Bool = state.withLock { state in
                    if state.closed || Task.isCancelled { return true }
                    if state.held == 0 || state.held + bytes <= limit {
                        state.held += bytes
                        state.peak = max(state.peak, state.held)
                        return true
                    }
                    state.waiter = (bytes, continuation)
                    state.pauses += 1
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            close()
        }
    }

    /// The reader finished with `bytes` held ones.
    public func release(_ bytes: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.held = max(0, state.held - bytes)
            return state.takeWaiterIfRoom(limit: limit)
        }
        waiter?.resume()
    }

    /// The connection ended: a waiting reader goes on (and nothing waits again).
    public func close() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.closed = true
            return state.takeWaiterIfRoom(limit: limit)
        }
        waiter?.resume()
    }
}
