import BridgeHub
import BridgeProtocol
import Synchronization

/// The messages a link received and has not relayed yet: the reader appends, the relay takes what is waiting in
/// batches of at most ``maxBatch`` (a busy hub gets them in one transaction; a phone's outbox gets time to drain
/// between batches). Their bytes are bounded by the link's inbound window (``LinkBudget/inFlightBytes``: a frame
/// here is still in it until relayed), their number by ``capacity``: a link past it is closed by its reader and
/// resumes from its cursor (the linked machine keeps the messages in its journal). The most bytes and messages
/// ever waiting are kept for the tests and the metrics.
final class RelayBuffer: Sendable {
    /// Most messages relayed in one batch.
    static let maxBatch = 512

    private struct State {
        var messages: [RelayedFrame] = []
        var bytes = 0
        var peakBytes = 0
        var peakCount = 0
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    /// Most messages waiting.
    let capacity: Int
    /// Most bytes relayed in one batch (at least one message): half the link's window, so the link reads the next
    /// batch while the hub journals this one.
    let maxBatchBytes: Int
    private let state = Mutex(State())

    init(capacity: Int = LinkBudget.standard.waitingMessages, maxBatchBytes: Int = LinkBudget.standard.inFlightBytes / 2) {
        self.capacity = capacity
        self.maxBatchBytes = maxBatchBytes
    }

    /// The most bytes (as received) and messages that waited at once.
    var peak: (bytes: Int, count: Int) { state.withLock { ($0.peakBytes, $0.peakCount) } }

    /// Adds a message; false when ``capacity`` are already waiting (the message is not added).
    func append(_ message: RelayedFrame) -> Bool {
        let (added, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            guard state.messages.count < capacity else { return (false, nil) }
            state.messages.append(message)
            state.bytes += message.receivedBytes
            state.peakBytes = max(state.peakBytes, state.bytes)
            state.peakCount = max(state.peakCount, state.messages.count)
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

    /// The oldest waiting messages (at most ``maxBatch``, and ``maxBatchBytes``), after waiting for at least one; nil once finished and
    /// empty.
    func next() async -> [RelayedFrame]? {
        while true {
            let taken = state.withLock { state -> (batch: [RelayedFrame], finished: Bool) in
                var count = 0
                var bytes = 0
                for message in state.messages.prefix(Self.maxBatch) {
                    if count > 0, bytes + message.receivedBytes > maxBatchBytes { break }
                    count += 1
                    bytes += message.receivedBytes
                }
                let batch = Array(state.messages.prefix(count))
                state.messages.removeFirst(count)
                state.bytes -= bytes
                return (batch, state.finished)
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
