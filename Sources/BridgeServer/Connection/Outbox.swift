import NIOCore
import Synchronization

/// One connection's bounded queue of outbound frames, drained by a single writer task.
///
/// Producers never wait: a full queue reports `.overflow` and the connection is closed (1013) so that a
/// client that does not read can neither slow the others nor grow memory. A close request is always
/// accepted and is delivered after the frames queued before it.
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

    private struct State {
        var items = CircularBuffer<Item>(initialCapacity: 16)
        var waiter: CheckedContinuation<Item?, Never>?
        var closeQueued = false
        var finished = false
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Queues one text frame.
    func enqueue(_ text: String) -> EnqueueResult {
        let (result, waiter): (EnqueueResult, CheckedContinuation<Item?, Never>?) = state.withLock { state in
            if state.finished || state.closeQueued { return (.closed, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (.enqueued, waiter)
            }
            guard state.items.count < capacity else { return (.overflow, nil) }
            state.items.append(.text(text))
            return (.enqueued, nil)
        }
        waiter?.resume(returning: .text(text))
        return result
    }

    /// Queues a close after everything queued so far. Only the first close counts.
    func enqueueClose(code: UInt16, reason: String) {
        let item = Item.close(code: code, reason: reason)
        let waiter: CheckedContinuation<Item?, Never>? = state.withLock { state in
            if state.finished || state.closeQueued { return nil }
            state.closeQueued = true
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.items.append(item)
            return nil
        }
        waiter?.resume(returning: item)
    }

    /// Ends the queue: pending and future items are dropped and `next()` returns nil.
    func finish() {
        let waiter: CheckedContinuation<Item?, Never>? = state.withLock { state in
            state.finished = true
            state.items.removeAll()
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Frames waiting to be written.
    var count: Int { state.withLock { $0.items.count } }

    /// The next item, waiting for one; nil once finished or when the task is cancelled.
    func next() async -> Item? {
        if let item: Item? = state.withLock({ state -> Item?? in
            if state.finished { return .some(nil) }
            if let first = state.items.popFirst() { return .some(first) }
            return nil
        }) {
            return item
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Item?, Never>) in
                let immediate: Item?? = state.withLock { state in
                    if state.finished || Task.isCancelled { return .some(nil) }
                    if let first = state.items.popFirst() { return .some(first) }
                    state.waiter = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            finish()
        }
    }
}
