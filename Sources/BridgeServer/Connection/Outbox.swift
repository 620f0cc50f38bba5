import NIOCore
import Synchronization

/// One connection's bounded queue of outbound text frames.
///
/// Producers never wait: a full queue reports `.overflow` and the connection is closed (1013) so that a
/// client that does not read can neither slow the others nor grow memory. The queue is drained on the
/// connection's event loop by ``FrameWriterHandler``, as many frames per flush as the socket takes: the first
/// frame queued into an idle outbox calls `wake` once, and the drain runs until the queue is empty or the
/// channel stops being writable (it resumes when the channel is writable again). A close request is always
/// accepted; it is handed to ``closeReached()`` after every frame queued before it was written.
final class Outbox: Sendable {
    enum Item: Sendable, Equatable {
        case text(String)
        case close(code: UInt16, reason: String)
    }

    enum EnqueueResult: Equatable {
        case enqueued
        case overflow
        case closed
    }

    /// What one drain step takes from the queue.
    struct Batch: Equatable {
        var frames: [String] = []
        /// The close request, when the drain reached it (after `frames`).
        var close: Item?
    }

    private struct State {
        var items = CircularBuffer<Item>(initialCapacity: 16)
        /// A drain is scheduled or waits for writability: producers need not wake it.
        var draining = false
        var wake: (@Sendable () -> Void)?
        var closeQueued = false
        /// Taken by the drain, not yet written.
        var closeTaken: Item?
        /// Written after every frame queued before it.
        var closeReached: Item?
        var closeWaiter: CheckedContinuation<Item?, Never>?
        /// A producer waiting for the queue to shrink to `limit` frames.
        var roomWaiter: (limit: Int, continuation: CheckedContinuation<Void, Never>)?
        var finished = false

        /// The room waiter to resume now that frames were taken, if the queue is short enough.
        mutating func takeRoomWaiter() -> CheckedContinuation<Void, Never>? {
            guard let waiter = roomWaiter, items.count <= waiter.limit else { return nil }
            roomWaiter = nil
            return waiter.continuation
        }

        /// The wake to call for a newly queued item, marking the outbox as draining.
        mutating func takeWake() -> (@Sendable () -> Void)? {
            guard !draining, let wake else { return nil }
            draining = true
            return wake
        }
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Connects the drain: `wake` is called (from any thread) when frames wait and no drain is under way.
    func attach(wake: @escaping @Sendable () -> Void) {
        let wakeNow: Bool = state.withLock { state in
            state.wake = wake
            guard !state.items.isEmpty, !state.draining else { return false }
            state.draining = true
            return true
        }
        if wakeNow { wake() }
    }

    /// Queues one text frame.
    func enqueue(_ text: String) -> EnqueueResult {
        let (result, wake): (EnqueueResult, (@Sendable () -> Void)?) = state.withLock { state in
            if state.finished || state.closeQueued { return (.closed, nil) }
            guard state.items.count < capacity else { return (.overflow, nil) }
            state.items.append(.text(text))
            return (.enqueued, state.takeWake())
        }
        wake?()
        return result
    }

    /// Queues a close after everything queued so far. Only the first close counts.
    func enqueueClose(code: UInt16, reason: String) {
        let wake: (@Sendable () -> Void)? = state.withLock { state in
            if state.finished || state.closeQueued { return nil }
            state.closeQueued = true
            state.items.append(.close(code: code, reason: reason))
            return state.takeWake()
        }
        wake?()
    }

    /// Takes up to `limit` frames for the writer, and the close request if it comes next (the writer calls
    /// ``closeWritten()`` once the frames before it are written). When nothing is left the outbox counts as
    /// idle again (the next frame wakes the drain); while frames are left it counts as draining (the caller
    /// continues, now or when the channel is writable again).
    func take(limit: Int) -> Batch {
        let (batch, room): (Batch, CheckedContinuation<Void, Never>?) = state.withLock { state in
            var batch = Batch()
            if state.finished { return (batch, nil) }
            while batch.frames.count < limit, let first = state.items.first {
                state.items.removeFirst()
                switch first {
                case .text(let text):
                    batch.frames.append(text)
                case .close:
                    batch.close = first
                    state.closeTaken = first
                    state.draining = false
                    return (batch, state.takeRoomWaiter())
                }
            }
            state.draining = !state.items.isEmpty
            return (batch, state.takeRoomWaiter())
        }
        room?.resume()
        return batch
    }

    /// Waits until at most `frames` frames are queued, or the outbox is finished (for a producer that paces
    /// itself, like a replay). One waiter at a time.
    func waitUntilQueued(atMost frames: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (now, replaced): (Bool, CheckedContinuation<Void, Never>?) = state.withLock { state in
                if state.finished || state.items.count <= frames { return (true, nil) }
                defer { state.roomWaiter = (frames, continuation) }
                return (false, state.roomWaiter?.continuation)
            }
            replaced?.resume()
            if now { continuation.resume() }
        }
    }

    /// The frames queued before the close request are written: hands the close to ``closeReached()``.
    func closeWritten() {
        let (waiter, close): (CheckedContinuation<Item?, Never>?, Item?) = state.withLock { state in
            state.closeReached = state.closeTaken
            defer { state.closeWaiter = nil }
            return (state.closeWaiter, state.closeReached)
        }
        waiter?.resume(returning: close)
    }

    /// Ends the queue: pending and future frames are dropped and ``closeReached()`` returns nil.
    func finish() {
        let (waiter, room): (CheckedContinuation<Item?, Never>?, CheckedContinuation<Void, Never>?) = state.withLock { state in
            state.finished = true
            state.items.removeAll()
            defer {
                state.closeWaiter = nil
                state.roomWaiter = nil
            }
            return (state.closeWaiter, state.roomWaiter?.continuation)
        }
        waiter?.resume(returning: nil)
        room?.resume()
    }

    /// Frames waiting to be written.
    var count: Int { state.withLock { $0.items.count } }

    /// Waits until the drain reaches a close request (every frame before it written) and returns it; nil once
    /// finished or when the task is cancelled.
    func closeReached() async -> Item? {
        if let now: Item? = state.withLock({ state -> Item?? in
            if state.finished { return .some(nil) }
            if let close = state.closeReached { return .some(close) }
            return nil
        }) {
            return now
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Item?, Never>) in
                let immediate: Item?? = state.withLock { state in
                    if state.finished || Task.isCancelled { return .some(nil) }
                    if let close = state.closeReached { return .some(close) }
                    state.closeWaiter = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            finish()
        }
    }
}
