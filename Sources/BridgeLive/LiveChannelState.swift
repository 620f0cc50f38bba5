import NIOCore

/// The live channel's rules for one connection, without I/O or tasks (BRIDGE.md "Live channel"): stream ids,
/// the watermarks both ways, and what a frame from the client does. ``LiveChannel`` keeps it under a lock and
/// does what it returns; `Waiter` is whatever resumes a suspended producer or consumer (a continuation there,
/// a number in tests).
package struct LiveChannelState<Waiter> {
    package let limits: LiveLimits
    /// Bytes of binary frames queued for the socket that it has not taken yet.
    package private(set) var queued = 0
    /// The most `queued` has been (the bound the watermarks promise).
    package private(set) var peakQueued = 0
    /// Above `highWater` until back at `lowWater`: producers wait.
    package private(set) var held = false
    private var nextId: UInt32 = 1
    private var streams: [UInt32: Stream] = [:]
    private var closed = false

    private struct Stream {
        /// The client paused the stream: its producer waits for the client's resume.
        var clientPaused = false
        /// Producers waiting for room, each with its token.
        var senders: [(token: UInt64, waiter: Waiter)] = []
        /// Data from the client its consumer has not taken yet.
        var inbound = CircularBuffer<ByteBuffer>()
        var inboundBytes = 0
        /// This side sent `pause` and owes a `resume`.
        var pausedClient = false
        var consumer: (token: UInt64, waiter: Waiter)?
        /// The client ended it: the consumer takes what is left, then the stream is forgotten.
        var endedByClient = false
    }

    package init(limits: LiveLimits) {
        self.limits = limits
    }

    /// Streams open now.
    package var openStreams: Int { streams.count }

    // MARK: Producing (bridge → client)

    /// A new stream's id.
    package mutating func open() -> UInt32? {
        guard !closed, nextId < .max else { return nil }
        defer { nextId += 1 }
        streams[nextId] = Stream()
        return nextId
    }

    package enum SendStep: Equatable, Sendable {
        /// Queue the frame now (its bytes are counted).
        case send
        /// Wait for room (``park(_:token:waiter:)``), then ask again.
        case wait
        /// The stream or the connection is over.
        case ended
    }

    /// Whether a data frame of `bytes` may be queued on stream `id` now.
    package mutating func send(_ id: UInt32, bytes: Int) -> SendStep {
        guard !closed, let stream = streams[id], !stream.endedByClient else { return .ended }
        if held || stream.clientPaused { return .wait }
        count(bytes)
        return .send
    }

    /// Parks a producer that was told to wait; false when it need not (things changed meanwhile: ask again).
    package mutating func park(_ id: UInt32, token: UInt64, waiter: Waiter) -> Bool {
        guard !closed, let stream = streams[id], !stream.endedByClient, held || stream.clientPaused else { return false }
        streams[id]?.senders.append((token, waiter))
        return true
    }

    /// Takes back a parked waiter (its task was cancelled); nil when it was already woken.
    package mutating func unpark(_ id: UInt32, token: UInt64) -> Waiter? {
        if let index = streams[id]?.senders.firstIndex(where: { $0.token == token }) {
            return streams[id]?.senders.remove(at: index).waiter
        }
        if let consumer = streams[id]?.consumer, consumer.token == token {
            streams[id]?.consumer = nil
            return consumer.waiter
        }
        return nil
    }

    /// A frame queued that the watermark does not hold back (a control frame): counted all the same.
    package mutating func count(_ bytes: Int) {
        queued += bytes
        peakQueued = max(peakQueued, queued)
        if queued > limits.highWater { held = true }
    }

    /// The frame could not be queued after all (the connection is closing).
    package mutating func uncount(_ bytes: Int) {
        queued = max(0, queued - bytes)
    }

    /// The socket took `bytes` of binary frames: the producers to wake once the count is back at the low mark.
    package mutating func taken(_ bytes: Int) -> [Waiter] {
        queued = max(0, queued - bytes)
        guard held, queued <= limits.lowWater else { return [] }
        held = false
        var woken: [Waiter] = []
        for id in streams.keys where streams[id]?.clientPaused == false {
            woken += streams[id]?.senders.map(\.waiter) ?? []
            streams[id]?.senders.removeAll()
        }
        return woken
    }

    /// This side ends stream `id`: whether it was open (an `end` frame is then due; its bytes are counted), and
    /// whom to wake (they see it ended).
    package mutating func end(_ id: UInt32) -> (wasOpen: Bool, woken: [Waiter]) {
        guard let stream = streams.removeValue(forKey: id) else { return (false, []) }
        if !stream.endedByClient { count(LiveFrame.headerSize) }
        return (!stream.endedByClient, Self.waiters(of: stream))
    }

    /// The connection is gone: every stream ends, everyone waiting is woken.
    package mutating func close() -> [Waiter] {
        closed = true
        defer { streams.removeAll() }
        return streams.values.flatMap(Self.waiters(of:))
    }

    private static func waiters(of stream: Stream) -> [Waiter] {
        stream.senders.map(\.waiter) + (stream.consumer.map { [$0.waiter] } ?? [])
    }

    // MARK: Receiving (client → bridge)

    package enum Outcome: Equatable, Sendable {
        case accepted
        /// On an id this connection was never given (or 0): answer `unknown_stream`.
        case unknownStream(UInt32)
        /// On a stream that ended: dropped silently (it crossed the end).
        case dropped
        /// More than ``LiveLimits/floodBytes`` wait in a paused stream: close the connection.
        case flooded
    }

    package struct Receipt {
        package var outcome: Outcome
        /// A control frame to send the client (`pause`), its bytes counted.
        package var reply: LiveFrame?
        package var woken: [Waiter] = []
    }

    /// A frame from the client.
    package mutating func received(_ frame: LiveFrame) -> Receipt {
        let id = frame.streamId
        guard !closed else { return Receipt(outcome: .dropped) }
        guard id != 0, id < nextId else { return Receipt(outcome: .unknownStream(id)) }
        guard var stream = streams[id], !stream.endedByClient else { return Receipt(outcome: .dropped) }
        var receipt = Receipt(outcome: .accepted)
        switch frame.kind {
        case .data:
            stream.inbound.append(frame.payload)
            stream.inboundBytes += frame.payload.readableBytes
            if stream.inboundBytes > limits.floodBytes {
                receipt.outcome = .flooded
            } else if stream.inboundBytes > limits.highWater, !stream.pausedClient {
                stream.pausedClient = true
                count(LiveFrame.headerSize)
                receipt.reply = LiveFrame(.pause, streamId: id)
            }
            if let consumer = stream.consumer {
                stream.consumer = nil
                receipt.woken.append(consumer.waiter)
            }
        case .pause:
            stream.clientPaused = true
        case .resume:
            stream.clientPaused = false
            if !held {
                receipt.woken = stream.senders.map(\.waiter)
                stream.senders.removeAll()
            }
        case .end:
            stream.endedByClient = true
            receipt.woken = Self.waiters(of: stream)
            stream.senders.removeAll()
            stream.consumer = nil
        }
        if stream.endedByClient, stream.inbound.isEmpty {
            streams[id] = nil
        } else {
            streams[id] = stream
        }
        return receipt
    }

    package enum Next: Sendable {
        /// The next bytes, and a `resume` to send the client when taking them made room (its bytes counted).
        case bytes(ByteBuffer, reply: LiveFrame?)
        /// Nothing yet: park the consumer (``parkConsumer(_:token:waiter:)``) and ask again.
        case wait
        /// The stream is over and nothing of it is left.
        case finished
    }

    /// The consumer of stream `id` takes what the client sent next.
    package mutating func next(_ id: UInt32) -> Next {
        guard var stream = streams[id] else { return .finished }
        guard let bytes = stream.inbound.popFirst() else { return stream.endedByClient || closed ? .finished : .wait }
        stream.inboundBytes -= bytes.readableBytes
        var reply: LiveFrame?
        if stream.pausedClient, stream.inboundBytes <= limits.lowWater, !stream.endedByClient {
            stream.pausedClient = false
            count(LiveFrame.headerSize)
            reply = LiveFrame(.resume, streamId: id)
        }
        if stream.endedByClient, stream.inbound.isEmpty {
            streams[id] = nil
        } else {
            streams[id] = stream
        }
        return .bytes(bytes, reply: reply)
    }

    /// Parks the consumer of stream `id`; false when there is something to take after all (ask again).
    package mutating func parkConsumer(_ id: UInt32, token: UInt64, waiter: Waiter) -> Bool {
        guard let stream = streams[id], stream.inbound.isEmpty, !stream.endedByClient else { return false }
        streams[id]?.consumer = (token, waiter)
        return true
    }
}

extension LiveChannelState.Receipt: Sendable where Waiter: Sendable {}
