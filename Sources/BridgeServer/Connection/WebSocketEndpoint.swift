import BridgeHub
import BridgeProtocol
import Logging
import NIOCore
import NIOWebSocket

/// A whole message from the peer: fragments joined, text validated as UTF-8.
enum WebSocketMessage {
    case text(String)
    case binary(ByteBuffer)
}

/// The WebSocket under one connection, on its channel's event loop: everything below whole messages.
///
/// It sits after NIO's frame decoder, an ``InboundFrameCheck`` and NIO's frame aggregator, and does the close
/// handshake, pings both ways (answering the peer's, sending its own and closing a peer that misses two), UTF-8
/// validation of text messages and protocol errors (close 1002/1007/1009), through ``WebSocketLifecycle``. It
/// passes each message on as a ``WebSocketMessage`` to the handler above it: the bridge protocol's
/// ``ConnectionHandler``, or the ``EchoConnectionHandler``. Every frame either sends goes through its ``Outbox``,
/// the one writer: the hub queues events there from any thread, and the drain writes them here as bytes
/// (``ServerFrame``: header and payload in one buffer), as many per flush as the socket takes.
final class WebSocketEndpoint: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketMessage

    /// Fired to the handler above when the WebSocket stops taking messages on its own (the peer's close, a
    /// protocol error, a missed ping): it drops what waits and ignores answers still to come.
    struct Closing: Sendable {}

    /// Items taken from the outbox between two writability checks.
    static let chunk = 64

    let outbox: Outbox
    /// Where the frames the drain makes enter the pipeline (below NIO's encoder).
    let writer = FrameBytesWriter()
    /// Holds reads while the handler above waits; at the pipeline's tail.
    let readGate = ReadGate()
    private let configuration: BridgeServerConfiguration
    private let logger: Logger
    private var context: ChannelHandlerContext?
    private var lifecycle = WebSocketLifecycle()
    private var timers = Timers()

    /// The endpoint's two timers: its pings, and the socket's close after our close frame.
    private struct Timers {
        var heartbeat: RepeatedTask?
        var close: Scheduled<Void>?

        mutating func stopHeartbeat() {
            heartbeat?.cancel()
            heartbeat = nil
        }

        mutating func stop() {
            stopHeartbeat()
            close?.cancel()
            close = nil
        }
    }

    init(configuration: BridgeServerConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.outbox = Outbox(capacity: configuration.outboxCapacity, maxBytes: configuration.outboxMaxBytes)
    }

    /// Whether a message or a ping from the peer still gets an answer.
    var acceptsMessages: Bool { lifecycle.acceptsMessages }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loop = context.eventLoop
        outbox.attach(wake: {
            if loop.inEventLoop { bound.value.drain() } else { loop.execute { bound.value.drain() } }
        })
        if let interval = configuration.pingInterval {
            timers.heartbeat = loop.scheduleRepeatedTask(initialDelay: TimeAmount(interval), delay: TimeAmount(interval)) { _ in
                bound.value.heartbeatTick()
            }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timers.stop()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timers.stop()
        outbox.finish()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { drain() }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(.inputClosed) = event as? ChannelEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard lifecycle.isReading else { return }
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            guard lifecycle.acceptsMessages else { return }
            let payload = frame.unmaskedData
            guard let text = String(validating: payload.readableBytesView, as: UTF8.self) else {
                failProtocol(code: .dataInconsistentWithMessage, why: "text message is not UTF-8")
                return
            }
            context.fireChannelRead(wrapInboundOut(.text(text)))
        case .binary:
            guard lifecycle.acceptsMessages else { return }
            context.fireChannelRead(wrapInboundOut(.binary(frame.unmaskedData)))
        case .ping:
            guard lifecycle.acceptsMessages else { return }
            outbox.enqueue(.pong, frame.unmaskedData)
        case .pong:
            lifecycle.receivedPong()
        case .connectionClose:
            perform(lifecycle.receivedClose(payload: frame.unmaskedData))
        default:
            // The aggregator joins continuations and the frame check refuses reserved opcodes.
            failProtocol(code: .protocolError, why: "unexpected frame")
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case let error as NIOWebSocketError:
            switch error {
            case .invalidFrameLength: failProtocol(code: .messageTooLarge, why: "frame over the size limit")
            case .fragmentedControlFrame, .multiByteControlFrameLength: failProtocol(code: .protocolError, why: "\(error)")
            }
        case let error as NIOWebSocketFrameAggregator.Error:
            switch error {
            case .accumulatedFrameSizeIsTooLarge, .tooManyFragments:
                failProtocol(code: .messageTooLarge, why: "message over the size limit")
            default:
                failProtocol(code: .protocolError, why: "\(error)")
            }
        case let violation as InboundFrameCheck.Violation:
            failProtocol(code: .protocolError, why: violation.rule)
        default:
            logger.debug("Connection error", metadata: ["error.type": "\(type(of: error))"])
            context.close(promise: nil)
        }
    }

    /// Answers a protocol error with its close code and stops reading the peer (RFC 6455 §7.1.7).
    private func failProtocol(code: WebSocketErrorCode, why: String) {
        guard lifecycle.isReading else { return }
        logger.debug("WebSocket protocol error", metadata: ["bridge.close.reason": "\(why)"])
        context?.fireUserInboundEventTriggered(Closing())
        perform(lifecycle.protocolError(code))
    }

    /// Performs what the WebSocket's rules asked for.
    private func perform(_ action: WebSocketLifecycle.Action) {
        switch action {
        case .none:
            break
        case .close(let close):
            context?.fireUserInboundEventTriggered(Closing())
            outbox.replaceWithClose(close)
        case .closeSocket:
            context?.close(promise: nil)
        case .ping(let counter):
            var payload = ByteBuffer()
            payload.writeInteger(counter)
            outbox.enqueue(.ping, payload)
        }
    }

    private func heartbeatTick() {
        guard let context, context.channel.isActive else { return }
        perform(lifecycle.heartbeat())
    }

    // MARK: Writing (called by the handler above, on the event loop)

    /// Queues one text message; false when the peer's queue overflowed and the connection is closing.
    @discardableResult
    func send(text: String) -> Bool {
        guard outbox.enqueue(text) == .overflow else { return true }
        overflowed()
        return false
    }

    /// Queues one binary message.
    func send(binary: ByteBuffer) {
        outbox.enqueue(.binary, binary)
    }

    /// Closes after the frames already queued, waiting for the peer's close at most the close timeout
    /// (shutdown, revocation, a bad hello).
    func close(code: UInt16, reason: String) {
        lifecycle.closeQueued()
        let timeout = TimeAmount(configuration.closeTimeout)
        outbox.enqueueClose(CloseRequest(code: code, reason: reason, ending: .awaitPeer(timeout)))
    }

    /// The client stopped reading and its queue filled: drop what waits for it and close without waiting on
    /// its socket (it resumes from the journal).
    func overflowed() {
        guard lifecycle.acceptsMessages else { return }
        lifecycle.closeQueued()
        let close = CloseRequest(
            code: BridgeCloseCode.tryAgainLater, reason: "outbound queue full; reconnect and resume", ending: .after(.milliseconds(200)))
        if outbox.replaceWithClose(close) {
            logger.warning(
                "Closing a client that does not read (outbound queue full)", metadata: ["bridge.outbox.capacity": "\(outbox.capacity)"])
        }
    }

    /// Writes queued frames until the outbox is empty, the close is written, or the channel is not writable.
    func drain() {
        guard let context, !lifecycle.closeSent else { return }
        let allocator = context.channel.allocator
        var wrote = false
        while context.channel.isWritable, !lifecycle.closeSent {
            let items = outbox.take(limit: Self.chunk)
            // A run of text frames goes out as one buffer: one allocation and one pending write for the run, not
            // one per frame (on a flood of small events those were a good part of the cost of writing them).
            var left = 0
            for case .text(let text) in items { left += text.utf8.count + ServerFrame.maxHeaderBytes }
            var run: ByteBuffer?
            for item in items {
                switch item {
                case .text(let text):
                    if run == nil { run = allocator.buffer(capacity: left) }
                    ServerFrame.append(text: text, to: &run!)
                    left -= text.utf8.count + ServerFrame.maxHeaderBytes
                case .frame(let opcode, let data):
                    if let bytes = run.take() { writer.write(bytes, promise: nil) }
                    writer.write(ServerFrame.frame(opcode, payload: data, allocator: allocator), promise: nil)
                case .close(let close):
                    if let bytes = run.take() { writer.write(bytes, promise: nil) }
                    writeClose(close, context: context)
                }
            }
            if let bytes = run.take() { writer.write(bytes, promise: nil) }
            wrote = wrote || !items.isEmpty
            if items.count < Self.chunk { break }
        }
        if wrote { writer.flush() }
    }

    private func writeClose(_ close: CloseRequest, context: ChannelHandlerContext) {
        let peerClosed = lifecycle.closeWritten()
        timers.stopHeartbeat()
        var data = context.channel.allocator.buffer(capacity: 2 + close.reason.utf8.count)
        if let code = close.code {
            data.writeInteger(code)
            data.writeString(close.reason)
        }
        logger.debug(
            "Closing",
            metadata: ["bridge.close.code": "\(close.code.map(String.init) ?? "none")", "bridge.close.reason": "\(close.reason)"])
        let promise = context.eventLoop.makePromise(of: Void.self)
        writer.write(ServerFrame.frame(.connectionClose, payload: data, allocator: context.channel.allocator), promise: promise)
        let channel = context.channel
        let loop = context.eventLoop
        if peerClosed {
            promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
            return
        }
        switch close.ending {
        case .now:
            promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
        case .awaitPeer(let timeout):
            timers.close = loop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        case .after(let delay):
            timers.close = loop.scheduleTask(in: delay) { channel.close(promise: nil) }
        case .halfClose(let linger):
            promise.futureResult.whenComplete { _ in channel.close(mode: .output, promise: nil) }
            timers.close = loop.scheduleTask(in: linger) { channel.close(promise: nil) }
        }
    }
}

extension WebSocketEndpoint {
    struct ShuttingDown: Error {}

    /// Puts a connection on an upgraded channel (on its event loop): NIO's upgrader has added the frame decoder
    /// and encoder; the frame check, the aggregator (a message of at most `maxMessageBytes`, in at most 1024
    /// fragments), the endpoint, the handler `makeHandler` makes for the connection id the registry gives, and the
    /// read gate go after the decoder; frames enter below the encoder, as bytes (``FrameBytesWriter``).
    /// `makeHandler` gets the id, the endpoint and the connection's logger (`bridge.connection.id`,
    /// `bridge.remote`), and returns the handler with its closer (shutdown, revocation).
    static func install<Handler: ChannelHandler>(
        on channel: any Channel, environment: ConnectionEnvironment, remoteAddress: String,
        makeHandler: (UInt64, WebSocketEndpoint, Logger) -> (Handler, closer: (UInt16, String) -> Void)
    ) throws {
        channel.eventLoop.preconditionInEventLoop()
        var made: (handler: Handler, endpoint: WebSocketEndpoint)?
        let registered = environment.registry.register { id in
            var logger = environment.logger
            logger[metadataKey: "bridge.connection.id"] = "\(id)"
            logger[metadataKey: "bridge.remote"] = "\(remoteAddress)"
            let endpoint = WebSocketEndpoint(configuration: environment.configuration, logger: logger)
            let (handler, closer) = makeHandler(id, endpoint, logger)
            made = (handler, endpoint)
            let bound = NIOLoopBound(closer, eventLoop: channel.eventLoop)
            let loop = channel.eventLoop
            return { code, reason in loop.execute { bound.value(code, reason) } }
        }
        guard registered != nil, let made else { throw ShuttingDown() }
        let (handler, endpoint) = made
        let aggregator = NIOWebSocketFrameAggregator(
            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1024,
            maxAccumulatedFrameSize: environment.configuration.maxMessageBytes)
        let encoder = try channel.pipeline.syncOperations.handler(type: WebSocketFrameEncoder.self)
        try channel.pipeline.syncOperations.addHandler(endpoint.writer, position: .before(encoder))
        try channel.pipeline.syncOperations.addHandlers([InboundFrameCheck(), aggregator, endpoint, handler, endpoint.readGate])
        // Room for a burst of events before the channel reports itself unwritable (each change is a pipeline
        // event and a pause of the drain); the outbox bounds what waits beyond it.
        channel.setOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 128 * 1024, high: 512 * 1024))
            .whenFailure { _ in }
    }
}
