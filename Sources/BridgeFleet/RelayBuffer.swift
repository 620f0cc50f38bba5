import BridgeProtocol
import Synchronization

/// The messages a link received and has not relayed yet: the reader appends, the relay takes what is waiting in
/// batches of at most ``maxBatch`` (a busy hub gets them in one transaction; a phone's outbox gets time to drain
/// between batches). At most ``capacity`` wait: a link that falls that far behind is dropped by its reader and
/// resumes from its cursor (the linked machine keeps the messages in its journal), so a flood never grows the home
/// bridge's memory without bound.
final class RelayBuffer: Sendable {
    /// Most messages relayed in one batch.
    static let maxBatch = 512
    /// Most messages waiting.
    static let capacity = 16384

    private struct State {
        var messages: [RelayedFrame] = []
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Adds a message; false when ``capacity`` are already waiting (the message is not added).
    func append(_ message: RelayedFrame) -> Bool {
        let (added, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard state.messages.count < Self.capacity else { return (false, nil) }
            state.messages.append(message)
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume()
        return added
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

    /// The oldest waiting messages (at most ``maxBatch``), after waiting for at least one; nil once finished and
    /// empty.
    func next() async -> [RelayedFrame]? {
        while true {
            let taken = state.withLock { state -> (batch: [RelayedFrame], finished: Bool) in
                let count = min(state.messages.count, Self.maxBatch)
                defer { state.messages.removeFirst(count) }
                return (Array(state.messages.prefix(count)), state.finished)
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
