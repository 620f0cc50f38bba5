import BridgeHub
import BridgeProtocol
import Logging
import NIOCore
import NIOWebSocket

/// One WebSocket client, entirely on its channel's event loop: no task and no async stream per connection.
///
/// It sits at the end of the pipeline the upgrade builds — NIO's frame decoder, an ``InboundFrameCheck``, NIO's
/// frame aggregator — and does everything above single frames: the close
/// handshake, pings both ways (answering the peer's, sending its own and closing a peer that misses two), UTF-8
/// validation of text messages, protocol errors (close 1002/1007/1009), and the bridge protocol through the
/// ``ConnectionStateMachine``. Every frame it sends, control frames included, goes through its ``Outbox``, the
/// one writer: the hub queues events there from any thread, and the drain writes them here as bytes
/// (``ServerFrame``: header and payload in one buffer), as many per flush as the socket takes. Work that must wait (checking a token, opening the session in the hub, a request) runs
/// in a task that reports back to the event loop; while a hello is being checked or a session opened, the
/// frames that follow wait their turn, in order.
///
/// In echo mode (``BridgeServerConfiguration/echoMode``) every message is sent back as it came, with the same
/// WebSocket handling: the stack Autobahn|Testsuite runs against.
final class ConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame

    /// Most requests one connection may have running at once; more are answered `rate_limited`.
    static let maxRequestsInFlight = 64
    /// Items taken from the outbox between two writability checks.
    static let chunk = 64

    let id: UInt64
    let loop: any EventLoop
    let environment: ConnectionEnvironment
    let setup: ConnectionSetup
    let outbox: Outbox
    /// Where the frames the drain makes enter the pipeline (below NIO's encoder).
    let writer = FrameBytesWriter()
    let logger: Logger

    var machine: ConnectionStateMachine
    var session: ClientSession?
    var context: ChannelHandlerContext?

    // The WebSocket's own state.
    private var webSocket = WebSocketLifecycle()
    private var closeTimer: Scheduled<Void>?
    private var heartbeat: RepeatedTask?

    // The bridge protocol's state.
    /// A hello is being checked or a session opened: messages wait in `waiting`, in order, and the socket is
    /// not read meanwhile (the ``ReadGate`` holds the pipeline's reads; what a peer can pile up is what one read
    /// already brought in).
    var busy = false {
        didSet {
            guard busy != oldValue else { return }
            if busy { readGate.pauseReading() } else { readGate.resumeReading() }
        }
    }
    /// Holds reads while `busy`; at the pipeline's tail.
    let readGate = ReadGate()
    var waiting: [WebSocketFrame] = []
    var helloTimer: Scheduled<Void>?
    var requests: [UInt64: Task<Void, Never>] = [:]
    /// Waiting for the workstation to confirm this connection's pairing; cancelled when the channel goes.
    var confirmation: Task<Void, Never>?
    var nextRequest: UInt64 = 0
    /// The channel is gone; the session is closed once nothing is in flight.
    var ended = false
    var sessionFinished = false

    init(id: UInt64, loop: any EventLoop, environment: ConnectionEnvironment, setup: ConnectionSetup) {
        self.id = id
        self.loop = loop
        self.environment = environment
        self.setup = setup
        var logger = environment.logger
        logger[metadataKey: "bridge.connection.id"] = "\(id)"
        logger[metadataKey: "bridge.remote"] = "\(setup.remoteAddress)"
        self.logger = logger
        self.outbox = Outbox(capacity: environment.configuration.outboxCapacity)
        if case .accepted(let principal, _, _) = setup.preauthenticated {
            self.machine = ConnectionStateMachine(preauthenticated: principal)
        } else {
            self.machine = ConnectionStateMachine()
        }
    }

    var isEcho: Bool { environment.configuration.echoMode }

    /// A closure that runs `body` on the event loop with this handler, from any thread (at once when called
    /// on the loop). Make it on the loop.
    func onLoop(_ body: @escaping (ConnectionHandler) -> Void) -> @Sendable () -> Void {
        let run = onLoopWith { (handler, _: Void) in body(handler) }
        return { run(()) }
    }

    /// ``onLoop(_:)`` for a closure that takes a value.
    func onLoopWith<Value: Sendable>(_ body: @escaping (ConnectionHandler, Value) -> Void) -> @Sendable (Value) -> Void {
        let loop = self.loop
        let bound = NIOLoopBound((handler: self, body: body), eventLoop: loop)
        return { value in
            if loop.inEventLoop {
                bound.value.body(bound.value.handler, value)
            } else {
                loop.execute { bound.value.body(bound.value.handler, value) }
            }
        }
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        outbox.attach(wake: onLoop { $0.drain() })
        let configuration = environment.configuration
        if !isEcho {
            let timedOut = onLoop { $0.perform($0.machine.helloTimedOut()) }
            helloTimer = context.eventLoop.scheduleTask(in: TimeAmount(configuration.helloTimeout)) { timedOut() }
        }
        if let interval = configuration.pingInterval {
            let tick = onLoop { $0.heartbeatTick() }
            heartbeat = context.eventLoop.scheduleRepeatedTask(initialDelay: TimeAmount(interval), delay: TimeAmount(interval)) { _ in
                tick()
            }
        }
        logger.debug("WebSocket connected")
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopTimers()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopTimers()
        outbox.finish()
        ended = true
        for task in requests.values { task.cancel() }
        confirmation?.cancel()
        logger.debug("WebSocket closed")
        finishSessionIfIdle()
        context.fireChannelInactive()
    }

    private func stopTimers() {
        helloTimer?.cancel()
        helloTimer = nil
        heartbeat?.cancel()
        heartbeat = nil
        closeTimer?.cancel()
        closeTimer = nil
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
        guard webSocket.isReading else { return }
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            guard webSocket.acceptsMessages else { return }
            if busy {
                waiting.append(frame)
            } else {
                receivedMessage(frame)
            }
        case .ping:
            guard webSocket.acceptsMessages else { return }
            outbox.enqueue(.pong, frame.unmaskedData)
        case .pong:
            webSocket.receivedPong()
        case .connectionClose:
            perform(webSocket.receivedClose(payload: frame.unmaskedData))
        default:
            // The aggregator joins continuations and the frame check refuses reserved opcodes.
            failProtocol(code: .protocolError, why: "unexpected frame")
        }
    }

    /// One whole message (fragments joined), in order.
    func receivedMessage(_ frame: WebSocketFrame) {
        let data = frame.unmaskedData
        switch frame.opcode {
        case .text:
            guard let text = String(validating: data.readableBytesView, as: UTF8.self) else {
                failProtocol(code: .dataInconsistentWithMessage, why: "text message is not UTF-8")
                return
            }
            if isEcho {
                send(text: text)
            } else {
                receivedText(text)
            }
        default:
            if isEcho {
                outbox.enqueue(.binary, data)
            } else {
                perform(machine.receivedBinary())
            }
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
        guard webSocket.isReading else { return }
        logger.debug("WebSocket protocol error", metadata: ["bridge.close.reason": "\(why)"])
        waiting.removeAll()
        machine.closing()
        perform(webSocket.protocolError(code))
    }

    /// Performs what the WebSocket's rules asked for.
    private func perform(_ action: WebSocketLifecycle.Action) {
        switch action {
        case .none:
            break
        case .close(let close):
            machine.closing()
            outbox.replaceWithClose(close)
        case .closeSocket:
            context?.close(promise: nil)
        case .ping(let counter):
            var payload = ByteBuffer()
            payload.writeInteger(counter)
            outbox.enqueue(.ping, payload)
        }
    }

    // MARK: Writing

    /// Queues one protocol message.
    func send(_ message: ServerMessage) {
        guard let text = try? message.encodedText() else { return }
        send(text: text)
    }

    func send(text: String) {
        if outbox.enqueue(text) == .overflow { overflowed() }
    }

    /// Asks the connection to close after the frames already queued (shutdown, revocation, a bad hello).
    func requestClose(code: UInt16, reason: String) {
        machine.closing()
        webSocket.closeQueued()
        let timeout = TimeAmount(environment.configuration.closeTimeout)
        outbox.enqueueClose(CloseRequest(code: code, reason: reason, ending: .awaitPeer(timeout)))
    }

    /// The client stopped reading and its queue filled: drop what waits for it and close without waiting on
    /// its socket (it resumes from the journal).
    func overflowed() {
        guard webSocket.acceptsMessages else { return }
        machine.closing()
        webSocket.closeQueued()
        let close = CloseRequest(
            code: BridgeCloseCode.tryAgainLater, reason: "outbound queue full; reconnect and resume", ending: .after(.milliseconds(200)))
        if outbox.replaceWithClose(close) {
            logger.warning(
                "Closing a client that does not read (outbound queue full)", metadata: ["bridge.outbox.capacity": "\(outbox.capacity)"])
        }
    }

    private func heartbeatTick() {
        guard let context, context.channel.isActive else { return }
        perform(webSocket.heartbeat())
    }

    /// Writes queued frames until the outbox is empty, the close is written, or the channel is not writable.
    func drain() {
        guard let context, !webSocket.closeSent else { return }
        var wrote = false
        while context.channel.isWritable, !webSocket.closeSent {
            let items = outbox.take(limit: Self.chunk)
            for item in items {
                switch item {
                case .text(let text):
                    writer.write(ServerFrame.text(text, allocator: context.channel.allocator), promise: nil)
                case .frame(let opcode, let data):
                    writer.write(ServerFrame.frame(opcode, payload: data, allocator: context.channel.allocator), promise: nil)
                case .close(let close):
                    writeClose(close, context: context)
                }
            }
            wrote = wrote || !items.isEmpty
            if items.count < Self.chunk { break }
        }
        if wrote { writer.flush() }
    }

    private func writeClose(_ close: CloseRequest, context: ChannelHandlerContext) {
        let peerClosed = webSocket.closeWritten()
        heartbeat?.cancel()
        heartbeat = nil
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
            closeTimer = loop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        case .after(let delay):
            closeTimer = loop.scheduleTask(in: delay) { channel.close(promise: nil) }
        case .halfClose(let linger):
            promise.futureResult.whenComplete { _ in channel.close(mode: .output, promise: nil) }
            closeTimer = loop.scheduleTask(in: linger) { channel.close(promise: nil) }
        }
    }
}
