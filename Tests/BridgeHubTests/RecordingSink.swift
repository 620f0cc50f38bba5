import Synchronization

@testable import BridgeHub

/// A session's frames as the hub hands them over, kept for the test to take: the ``SessionSink`` that
/// BridgeServer's `Outbox` is for a connection, without WebSocket frames or an event loop, so these tests need
/// no server. Bounded like the outbox (an overflow keeps what fits and closes it) and with the same room wait,
/// so the hub's delivery pacing meets the same back-pressure when a test does not take.
final class RecordingSink: SessionSink {
    private struct State {
        var texts: [String] = []
        var closed = false
        /// A producer waiting for the queue to shrink to `limit` frames (`token` tells whose wait it is).
        var roomWaiter: (limit: Int, token: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var nextToken: UInt64 = 0

        mutating func takeRoomWaiter() -> CheckedContinuation<Void, Never>? {
            guard let waiter = roomWaiter, closed || texts.count <= waiter.limit else { return nil }
            roomWaiter = nil
            return waiter.continuation
        }
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { state.withLock { $0.texts.count } }

    func enqueue(contentsOf texts: [String]) -> SinkResult {
        state.withLock { state in
            if state.closed { return .closed }
            for text in texts {
                guard state.texts.count < capacity else {
                    state.closed = true  // as the outbox: nothing after a dropped frame
                    return .overflow
                }
                state.texts.append(text)
            }
            return .enqueued
        }
    }

    /// Takes up to `limit` frames, oldest first (each is taken once), and lets a waiting producer go on.
    func take(limit: Int) -> [String] {
        let (batch, room): ([String], CheckedContinuation<Void, Never>?) = state.withLock { state in
            let batch = Array(state.texts.prefix(limit))
            state.texts.removeFirst(batch.count)
            return (batch, state.takeRoomWaiter())
        }
        room?.resume()
        return batch
    }

    func waitUntilQueued(atMost frames: Int) async {
        let token = state.withLock { state in
            state.nextToken &+= 1
            return state.nextToken
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (now, replaced): (Bool, CheckedContinuation<Void, Never>?) = state.withLock { state in
                    if state.closed || state.texts.count <= frames || Task.isCancelled { return (true, nil) }
                    defer { state.roomWaiter = (frames, token, continuation) }
                    return (false, state.roomWaiter?.continuation)
                }
                replaced?.resume()
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
                guard let waiter = state.roomWaiter, waiter.token == token else { return nil }
                state.roomWaiter = nil
                return waiter.continuation
            }
            waiter?.resume()
        }
    }
}
