import BridgeProtocol
import NIOCore
import Synchronization

/// Where a live channel's frames go: the connection's outbound queue (BridgeServer's `Outbox`), which tells the
/// channel through ``LiveChannel/taken(bytes:)`` when the socket took them.
package protocol LiveTransport: Sendable {
    /// Queues one binary message; false when the connection is closing.
    func enqueueLive(_ message: ByteBuffer) -> Bool
}

/// A stream or its connection ended while a producer used it.
public struct LiveStreamEnded: Error, Hashable, Sendable {}

/// One authenticated session's live channel (BRIDGE.md "Live channel"): binary frames on its socket for
/// live-only streams such as the voice's audio, never journaled.
///
/// A request handler opens a stream (``open()``) and tells the client its id in its answer; it sends with
/// ``LiveStream/send(_:)``, which suspends while the socket holds more than the high watermark (or the client
/// paused the stream) instead of closing the client as the text outbox does, and reads what the client sends
/// with ``LiveStream/received``, whose pace pauses and resumes the client. The connection hands it every binary
/// message (``received(_:)``) and what its socket took (``taken(bytes:)``), and closes it when it ends.
public final class LiveChannel: Sendable {
    typealias Waiter = CheckedContinuation<Void, Never>

    public let limits: LiveLimits
    private let transport: any LiveTransport
    private let state: Mutex<(rules: LiveChannelState<Waiter>, nextToken: UInt64)>
    private let allocator = ByteBufferAllocator()

    package init(limits: LiveLimits = .standard, transport: any LiveTransport) {
        self.limits = limits
        self.transport = transport
        self.state = Mutex((LiveChannelState(limits: limits), 0))
    }

    /// What `helloAck.live` tells the client.
    public var info: LiveChannelInfo {
        LiveChannelInfo(
            version: Int(LiveFrame.version), maxFrame: limits.maxFrame, highWater: limits.highWater, lowWater: limits.lowWater)
    }

    /// Opens a stream on this connection; nil once the connection is gone.
    public func open() -> LiveStream? {
        state.withLock { $0.rules.open() }.map { LiveStream(id: $0, channel: self) }
    }

    /// Bytes queued for the socket that it has not taken, and the most there have been.
    public var queuedBytes: (now: Int, peak: Int) {
        state.withLock { ($0.rules.queued, $0.rules.peakQueued) }
    }

    // MARK: The connection's side

    package enum Receipt: Equatable, Sendable {
        case accepted
        /// Answer the client with this `error` (the connection stays open).
        case refused(ErrorMessage)
        /// The client flooded a paused stream: close it (1008).
        case flooded
    }

    /// One binary message from the client.
    package func received(_ message: ByteBuffer) -> Receipt {
        let frame: LiveFrame
        switch LiveFrame.parse(message, maxFrame: limits.maxFrame) {
        case .success(let parsed): frame = parsed
        case .failure(.unknownKind): return .accepted
        case .failure(.malformed(let streamId, let reason)):
            return .refused(ErrorMessage(id: nil, code: .badRequest, message: reason, streamId: streamId))
        case .failure(.tooLarge(let streamId, let size)):
            return .refused(
                ErrorMessage(
                    id: nil, code: .tooLarge, message: "live frame of \(size) bytes; at most \(limits.maxFrame)", streamId: streamId))
        }
        let receipt = state.withLock { $0.rules.received(frame) }
        for waiter in receipt.woken { waiter.resume() }
        if let reply = receipt.reply { enqueue(reply) }
        switch receipt.outcome {
        case .accepted, .dropped: return .accepted
        case .flooded: return .flooded
        case .unknownStream(let id):
            return .refused(ErrorMessage(id: nil, code: .unknownStream, message: "no live stream \(id) on this connection", streamId: id))
        }
    }

    /// The socket took `bytes` of binary frames.
    package func taken(bytes: Int) {
        let woken = state.withLock { $0.rules.taken(bytes) }
        for waiter in woken { waiter.resume() }
    }

    /// The connection is gone: every stream ends.
    package func close() {
        let woken = state.withLock { $0.rules.close() }
        for waiter in woken { waiter.resume() }
    }

    // MARK: The streams' side

    func send(_ payload: ByteBuffer, on id: UInt32) async throws(LiveStreamEnded) {
        var rest = payload
        while rest.readableBytes > 0 {
            let chunk = rest.readSlice(length: min(rest.readableBytes, limits.maxPayload))!
            let frame = LiveFrame(.data, streamId: id, payload: chunk).encoded(allocator: allocator)
            try await sendFrame(frame, on: id)
        }
    }

    private func sendFrame(_ frame: ByteBuffer, on id: UInt32) async throws(LiveStreamEnded) {
        let bytes = frame.readableBytes
        while true {
            switch state.withLock({ $0.rules.send(id, bytes: bytes) }) {
            case .send:
                guard transport.enqueueLive(frame) else {
                    state.withLock { $0.rules.uncount(bytes) }
                    throw LiveStreamEnded()
                }
                return
            case .ended:
                throw LiveStreamEnded()
            case .wait:
                await suspend(id) { rules, token, waiter in rules.park(id, token: token, waiter: waiter) }
                // A producer that is cancelled stops, as at the end of its stream.
                if Task.isCancelled { throw LiveStreamEnded() }
            }
        }
    }

    func end(_ id: UInt32) {
        let (wasOpen, woken) = state.withLock { $0.rules.end(id) }
        for waiter in woken { waiter.resume() }
        if wasOpen { _ = transport.enqueueLive(LiveFrame(.end, streamId: id).encoded(allocator: allocator)) }
    }

    func next(_ id: UInt32) async -> ByteBuffer? {
        while true {
            switch state.withLock({ $0.rules.next(id) }) {
            case .bytes(let bytes, let reply):
                if let reply { enqueue(reply) }
                return bytes
            case .finished:
                return nil
            case .wait:
                await suspend(id) { rules, token, waiter in rules.parkConsumer(id, token: token, waiter: waiter) }
                if Task.isCancelled { return nil }
            }
        }
    }

    /// Waits until woken, parked by `park` (which returns false when there is no need to wait); a cancelled
    /// task stops waiting.
    private func suspend(_ id: UInt32, park: (inout LiveChannelState<Waiter>, UInt64, Waiter) -> Bool) async {
        let token = state.withLock { state in
            state.nextToken &+= 1
            return state.nextToken
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: Waiter) in
                let parked = state.withLock { state in !Task.isCancelled && park(&state.rules, token, waiter) }
                if !parked { waiter.resume() }
            }
        } onCancel: {
            state.withLock { $0.rules.unpark(id, token: token) }?.resume()
        }
    }

    private func enqueue(_ control: LiveFrame) {
        if !transport.enqueueLive(control.encoded(allocator: allocator)) {
            state.withLock { $0.rules.uncount(LiveFrame.headerSize) }
        }
    }
}

/// One live stream of a session: send to the client, read what it sends, end it.
public struct LiveStream: Sendable, Hashable {
    /// The stream's id on its connection (what the opening request's answer tells the client as `streamId`).
    public let id: UInt32
    let channel: LiveChannel

    /// Sends `bytes` to the client, in frames of at most `maxFrame`; suspends while the socket holds more than
    /// the high watermark (until it is back at the low one) or the client paused the stream. Throws once the
    /// stream or its connection ended. The bytes are never journaled or kept.
    public func send(_ bytes: ByteBuffer) async throws(LiveStreamEnded) {
        try await channel.send(bytes, on: id)
    }

    /// Ends the stream (the client gets `end`); producers and the reader see it ended.
    public func end() {
        channel.end(id)
    }

    /// What the client sends on the stream, in order, until it ends (either side, or the connection). One
    /// reader; the pace it reads at pauses and resumes the client.
    public var received: Received { Received(stream: self) }

    public struct Received: AsyncSequence, Sendable {
        public typealias Element = ByteBuffer
        let stream: LiveStream

        public func makeAsyncIterator() -> Iterator { Iterator(stream: stream) }

        public struct Iterator: AsyncIteratorProtocol {
            let stream: LiveStream

            public mutating func next() async -> ByteBuffer? {
                await stream.channel.next(stream.id)
            }
        }
    }

    public static func == (lhs: LiveStream, rhs: LiveStream) -> Bool { lhs.id == rhs.id && lhs.channel === rhs.channel }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
