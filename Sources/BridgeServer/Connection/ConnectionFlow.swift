/// How a connection's messages and work flow, without sockets: whether it reads on or waits for a step to finish
/// (a hello's token being checked, its session opening), the messages that arrived meanwhile (handled later, in
/// order), the work in flight (requests, a pairing's confirmation), and its end: once the channel is gone and
/// nothing is in flight, the session is finished exactly once.
///
/// The connection performs what it answers (pause or resume reads, cancel work, finish the session); like
/// ``ConnectionStateMachine`` it never does I/O. `Message` and `Work` are the connection's (a WebSocket message, a
/// task); tests use plain values.
struct ConnectionFlow<Message, Work> {
    enum Phase: Equatable {
        /// Messages are handled as they arrive.
        case reading
        /// A step is under way: messages wait, and the socket is not read meanwhile.
        case waiting
        /// The channel is gone; `waiting`: a step is still under way.
        case ended(waiting: Bool)
        /// The session is finished (or there was none); nothing more happens.
        case finished
    }

    /// Most work items in flight at once; more are refused (requests are answered `rate_limited`).
    let maxInFlight: Int
    private(set) var phase = Phase.reading
    private var queued: [Message] = []
    private var inFlight: [UInt64: Work] = [:]
    private var nextKey: UInt64 = 0

    init(maxInFlight: Int) {
        self.maxInFlight = maxInFlight
    }

    /// Whether the channel is still there.
    var isOpen: Bool {
        switch phase {
        case .reading, .waiting: true
        case .ended, .finished: false
        }
    }

    var queuedCount: Int { queued.count }
    var inFlightCount: Int { inFlight.count }

    /// A message arrived: returned when it is to be handled now; kept for later while a step is under way;
    /// dropped once the channel is gone.
    mutating func arrived(_ message: Message) -> Message? {
        switch phase {
        case .reading: return message
        case .waiting:
            queued.append(message)
            return nil
        case .ended, .finished: return nil
        }
    }

    /// A step starts: true when reads must pause now.
    mutating func wait() -> Bool {
        switch phase {
        case .reading:
            phase = .waiting
            return true
        case .ended(waiting: false):
            phase = .ended(waiting: true)
            return false
        case .waiting, .ended(waiting: true), .finished:
            return false
        }
    }

    /// The step finished: true when reads must resume. Take the messages that waited with ``next()``.
    mutating func resume() -> Bool {
        switch phase {
        case .waiting:
            phase = .reading
            return true
        case .ended(waiting: true):
            phase = .ended(waiting: false)
            return false
        case .reading, .ended(waiting: false), .finished:
            return false
        }
    }

    /// The next message that waited, while the connection reads on (handling one may start another step).
    mutating func next() -> Message? {
        guard phase == .reading, !queued.isEmpty else { return nil }
        return queued.removeFirst()
    }

    /// The WebSocket stopped taking messages: what waits is dropped.
    mutating func dropQueued() {
        queued.removeAll()
    }

    /// A key for new work, or nil when `maxInFlight` items are in flight (or the channel is gone). Record the
    /// work under it with ``started(_:key:)``.
    mutating func reserve() -> UInt64? {
        guard inFlight.count < maxInFlight else { return nil }
        switch phase {
        case .reading, .waiting: break
        case .ended, .finished: return nil
        }
        defer { nextKey += 1 }
        return nextKey
    }

    mutating func started(_ work: Work, key: UInt64) {
        inFlight[key] = work
    }

    /// The work under `key` finished: true when the session is to be finished now.
    mutating func finished(_ key: UInt64) -> Bool {
        inFlight[key] = nil
        return finishIfIdle()
    }

    /// The channel is gone: the work in flight, to cancel (it still reports ``finished(_:)``), and whether the
    /// session is to be finished now.
    mutating func channelEnded() -> (cancel: [Work], finish: Bool) {
        switch phase {
        case .reading: phase = .ended(waiting: false)
        case .waiting: phase = .ended(waiting: true)
        case .ended, .finished: return ([], false)
        }
        queued.removeAll()
        return (Array(inFlight.values), finishIfIdle())
    }

    /// True once (then the phase is `finished`): when the channel is gone, no step is under way and no work is in
    /// flight.
    mutating func finishIfIdle() -> Bool {
        guard phase == .ended(waiting: false), inFlight.isEmpty else { return false }
        phase = .finished
        return true
    }
}
