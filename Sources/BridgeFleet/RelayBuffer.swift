import BridgeProtocol
import Synchronization

/// The messages a link received and has not relayed yet: the reader appends, the relay takes everything waiting
/// at once (so a busy hub gets them in one batch).
final class RelayBuffer: Sendable {
    private struct State {
        var messages: [RelayedFrame] = []
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    func append(_ message: RelayedFrame) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.messages.append(message)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// No more messages will come.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Everything waiting, after waiting for at least one; nil once finished and empty.
    func next() async -> [RelayedFrame]? {
        while true {
            let taken = state.withLock { state -> (batch: [RelayedFrame], finished: Bool) in
                defer { state.messages.removeAll(keepingCapacity: true) }
                return (state.messages, state.finished)
            }
            if !taken.batch.isEmpty { return taken.batch }
            if taken.finished { return nil }
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    if !state.messages.isEmpty || state.finished { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }
}
