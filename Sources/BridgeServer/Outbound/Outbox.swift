import BridgeHub
import BridgeLive
import NIOCore
import NIOWebSocket
import Synchronization

/// One connection's bounded queue of outbound frames: the only way a frame reaches its socket.
///
/// Producers (the hub, request tasks, the connection itself) never wait: a full queue of text frames reports
/// `.overflow` and the connection is closed (1013) so that a client that does not read can neither slow the
/// others nor grow memory. Control frames (pings, pongs, the close) are never refused for room. The queue is
/// drained on the connection's event loop by its ``ConnectionHandler``, as many frames per flush as the socket
/// takes: the first frame queued into an idle outbox calls `wake` once, and the drain runs until the queue is
/// empty or the channel stops being writable (it resumes when the channel is writable again). After a close
/// nothing more is accepted; once the drain has taken the close, the outbox is finished.
package final class Outbox: SessionSink, LiveTransport {
    package enum Item: Sendable, Equatable {
        /// A text frame (a protocol message, encoded once for every subscriber).
        case text(String)
        /// Any other frame: ping, pong, or a binary frame echoed back (echo mode).
        case frame(WebSocketOpcode, ByteBuffer)
        case close(CloseRequest)
    }

    package typealias EnqueueResult = SinkResult

    private struct State {
        var items = CircularBuffer<Item>(initialCapacity: 4)
        /// Text frames in `items` (the ones `capacity` counts), and their bytes (`maxBytes`).
        var texts = 0
        var textBytes = 0
        /// A drain is scheduled or waits for writability: producers need not wake it.
        var draining = false
        var wake: (@Sendable () -> Void)?
        /// Told the bytes of the binary frames the drain takes (the live channel's count of what waits).
        var binaryTaken: (@Sendable (Int) -> Void)?
        var closeQueued = false
        /// A producer waiting for the queue to shrink to `limit` frames (`token` tells whose wait it is).
        var roomWaiter: (limit: Int, token: UInt64, continuation: CheckedContinuation<Void, Never>)?
        var nextToken: UInt64 = 0
        var finished = false

        /// The room waiter to resume now that frames were taken, if the queue is short enough.
        mutating func takeRoomWaiter() -> CheckedContinuation<Void, Never>? {
            guard let waiter = roomWaiter, finished || texts <= waiter.limit else { return nil }
            roomWaiter = nil
            return waiter.continuation
        }

        /// The wake to call for a newly queued item, marking the outbox as draining.
        mutating func takeWake() -> (@Sendable () -> Void)? {
            guard !draining, let wake else { return nil }
            draining = true
            return wake
        }

        mutating func append(_ item: Item) -> (@Sendable () -> Void)? {
            items.append(item)
            return takeWake()
        }
    }

    package let capacity: Int
    /// The most bytes of text frames queued (a single larger frame is taken into an empty queue): frames relayed
    /// from a linked machine may be megabytes each, so counting frames alone bounded nothing (issue 44).
    package let maxBytes: Int
    private let state = Mutex(State())

    package init(capacity: Int, maxBytes: Int = .max) {
        self.capacity = capacity
        self.maxBytes = maxBytes
    }

    /// Connects the drain: `wake` is called (from any thread) when frames wait and no drain is under way.
    package func attach(wake: @escaping @Sendable () -> Void) {
        let wakeNow: Bool = state.withLock { state in
            state.wake = wake
            guard !state.items.isEmpty, !state.draining else { return false }
            state.draining = true
            return true
        }
        if wakeNow { wake() }
    }

    /// Tells `taken` the bytes of the binary frames the drain takes from now on, until the outbox is finished.
    package func onBinaryTaken(_ taken: @escaping @Sendable (Int) -> Void) {
        state.withLock { $0.binaryTaken = taken }
    }

    /// A live channel frame: binary, whatever the room (the channel bounds what it queues by its watermarks).
    package func enqueueLive(_ message: ByteBuffer) -> Bool {
        enqueue(.binary, message)
    }

    /// Queues one text frame.
    package func enqueue(_ text: String) -> EnqueueResult {
        enqueue(contentsOf: [text])
    }

    /// Queues text frames in order under one lock, with at most one wake (a fan-out batch). On overflow the
    /// frames that fit are queued and the rest dropped, as one by one.
    package func enqueue(contentsOf texts: [String]) -> EnqueueResult {
        let (result, wake): (EnqueueResult, (@Sendable () -> Void)?) = state.withLock { state in
            if state.finished || state.closeQueued { return (.closed, nil) }
            var result = EnqueueResult.enqueued
            for text in texts {
                let bytes = text.utf8.count
                guard state.texts < capacity, state.texts == 0 || state.textBytes + bytes <= maxBytes else {
                    state.closeQueued = true  // nothing after a dropped frame (see `enqueue(_:)`)
                    result = .overflow
                    break
                }
                state.texts += 1
                state.textBytes += bytes
                state.items.append(.text(text))
            }
            return (result, state.items.isEmpty ? nil : state.takeWake())
        }
        wake?()
        return result
    }

    /// Queues a control or binary frame, whatever the room; false once a close is queued.
    @discardableResult
    package func enqueue(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> Bool {
        let (accepted, wake): (Bool, (@Sendable () -> Void)?) = state.withLock { state in
            if state.finished || state.closeQueued { return (false, nil) }
            return (true, state.append(.frame(opcode, data)))
        }
        wake?()
        return accepted
    }

    /// Queues a close after everything queued so far. Only the first close counts; false when one was queued.
    @discardableResult
    package func enqueueClose(_ close: CloseRequest) -> Bool {
        let (accepted, wake): (Bool, (@Sendable () -> Void)?) = state.withLock { state in
            if state.finished || state.closeQueued { return (false, nil) }
            state.closeQueued = true
            return (true, state.append(.close(close)))
        }
        wake?()
        return accepted
    }

    /// Drops every frame still queued (and a close not yet taken) and queues `close` instead: for a peer that
    /// closed, broke the protocol, stopped answering pings or stopped reading. False once the drain has taken
    /// a close.
    @discardableResult
    package func replaceWithClose(_ close: CloseRequest) -> Bool {
        let (accepted, wake, room): (Bool, (@Sendable () -> Void)?, CheckedContinuation<Void, Never>?) = state.withLock { state in
            if state.finished { return (false, nil, nil) }
            state.items.removeAll(keepingCapacity: false)
            state.texts = 0
            state.textBytes = 0
            state.closeQueued = true
            let wake = state.append(.close(close))
            return (true, wake, state.takeRoomWaiter())
        }
        room?.resume()
        wake?()
        return accepted
    }

    /// Takes up to `limit` items for the writer, stopping after a close (the outbox is then finished). When
    /// nothing is left the outbox counts as idle again (the next frame wakes the drain); while frames are left
    /// it counts as draining (the caller continues, now or when the channel is writable again).
    package func take(limit: Int) -> [Item] {
        let (batch, room, binary, taken): ([Item], CheckedContinuation<Void, Never>?, Int, (@Sendable (Int) -> Void)?) = state.withLock {
            state in
            var batch: [Item] = []
            var binary = 0
            if state.finished { return (batch, nil, 0, nil) }
            batch.reserveCapacity(min(limit, state.items.count))
            while batch.count < limit, let first = state.items.popFirst() {
                batch.append(first)
                switch first {
                case .text(let text):
                    state.texts -= 1
                    state.textBytes -= text.utf8.count
                case .frame(let opcode, let data): if opcode == .binary { binary += data.readableBytes }
                case .close:
                    state.finished = true
                    state.items.removeAll()
                    state.texts = 0
                    state.textBytes = 0
                }
                if state.finished { break }
            }
            state.draining = !state.items.isEmpty
            return (batch, state.takeRoomWaiter(), binary, state.binaryTaken)
        }
        room?.resume()
        if binary > 0 { taken?(binary) }
        return batch
    }

    /// Waits until at most `frames` text frames are queued, the outbox is finished, or the task is cancelled
    /// (for a producer that paces itself, like a replay or the hub's delivery pacing). One waiter at a time: a
    /// new wait ends the previous one.
    package func waitUntilQueued(atMost frames: Int) async {
        let token = state.withLock { state in
            state.nextToken &+= 1
            return state.nextToken
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (now, replaced): (Bool, CheckedContinuation<Void, Never>?) = state.withLock { state in
                    if state.finished || state.texts <= frames || Task.isCancelled { return (true, nil) }
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

    /// Ends the queue (the socket is gone): pending and future frames are dropped, and the drain's wake is let go
    /// (it refers to the connection, which refers to this outbox).
    package func finish() {
        let room: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.finished = true
            state.items.removeAll()
            state.texts = 0
            state.textBytes = 0
            state.wake = nil
            state.binaryTaken = nil
            defer { state.roomWaiter = nil }
            return state.roomWaiter?.continuation
        }
        room?.resume()
    }

    /// Text frames waiting to be written.
    package var count: Int { state.withLock { $0.texts } }
    /// A producer waits for room (``waitUntilQueued(atMost:)``; a test's barrier).
    package var hasWaiter: Bool { state.withLock { $0.roomWaiter != nil } }
    /// Their bytes.
    package var bytes: Int { state.withLock { $0.textBytes } }
}
