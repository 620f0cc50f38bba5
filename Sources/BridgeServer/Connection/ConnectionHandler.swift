import BridgeHub
import BridgeLive
import BridgeProtocol
import Foundation
import Logging
import NIOCore
import NIOWebSocket

/// One bridge client, entirely on its channel's event loop: no task and no async stream per connection.
///
/// It sits above the ``WebSocketEndpoint`` (which does everything below whole messages: the close handshake,
/// pings, UTF-8, protocol errors, the outbox and its drain) and speaks the bridge protocol through two value
/// types that return what to do: the ``ConnectionStateMachine`` (hello, its token, ready, closed) and the
/// ``ConnectionFlow`` (whether it reads on or waits, what waits meanwhile, the work in flight, its end). Work that
/// must wait (a token the ``CredentialCheck`` cannot answer at once, opening the session in the hub, a request)
/// runs in a task that reports back to the event loop; while a hello is being checked or a session opened, the
/// messages that follow wait their turn, in order, and the socket is not read.
final class ConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketMessage

    /// Most requests one connection may have running at once; more are answered `rate_limited`.
    static let maxRequestsInFlight = 64

    let facts: ConnectionFacts
    /// The WebSocket below: sends, closes, pauses reads.
    let socket: WebSocketEndpoint
    var context: ChannelHandlerContext?
    var machine: ConnectionStateMachine
    var flow = ConnectionFlow<WebSocketMessage, Task<Void, Never>>(maxInFlight: ConnectionHandler.maxRequestsInFlight)
    var session: ClientSession?
    var helloTimer: Scheduled<Void>?

    init(facts: ConnectionFacts, socket: WebSocketEndpoint) {
        self.facts = facts
        self.socket = socket
        self.machine = ConnectionStateMachine(preauthenticated: facts.setup.preauthenticated)
    }

    var environment: ConnectionEnvironment { facts.environment }
    var logger: Logger { facts.logger }

    /// A closure that runs `body` on the event loop with this handler, from any thread (at once when called
    /// on the loop). Make it on the loop.
    func onLoop(_ body: @escaping (ConnectionHandler) -> Void) -> @Sendable () -> Void {
        let run = onLoopWith { (handler, _: Void) in body(handler) }
        return { run(()) }
    }

    /// ``onLoop(_:)`` for a closure that takes a value.
    func onLoopWith<Value: Sendable>(_ body: @escaping (ConnectionHandler, Value) -> Void) -> @Sendable (Value) -> Void {
        let loop = facts.loop
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
        let timedOut = onLoop { $0.perform($0.machine.helloTimedOut()) }
        helloTimer = context.eventLoop.scheduleTask(in: TimeAmount(environment.configuration.helloTimeout)) { timedOut() }
        logger.debug("WebSocket connected")
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        helloTimer?.cancel()
        helloTimer = nil
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        helloTimer?.cancel()
        helloTimer = nil
        session?.live?.close()
        let (work, finish) = flow.channelEnded()
        for task in work { task.cancel() }
        logger.debug("WebSocket closed")
        if finish { finishSession() }
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is WebSocketEndpoint.Closing else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        machine.closing()
        flow.dropQueued()
    }

    // MARK: Messages

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let message = flow.arrived(unwrapInboundIn(data)) else { return }
        handle(message)
    }

    /// One whole message, in order.
    private func handle(_ message: WebSocketMessage) {
        switch message {
        case .text(let text): perform(machine.receivedText(Data(text.utf8)))
        case .binary(let data):
            let action = machine.receivedBinary()
            if action == .live { receiveLive(data) } else { perform(action) }
        }
    }

    /// Queues one protocol message.
    func send(_ message: ServerMessage) {
        guard let text = try? message.encodedText() else { return }
        if !socket.send(text: text) { machine.closing() }
    }

    /// Asks the connection to close after the frames already queued (shutdown, revocation, a bad hello).
    func requestClose(code: UInt16, reason: String) {
        machine.closing()
        socket.close(code: code, reason: reason)
    }

    /// The client stopped reading and its queue filled (see ``WebSocketEndpoint/overflowed()``).
    func overflowed() {
        machine.closing()
        socket.overflowed()
    }

    /// A step starts (a token check, the session opening): messages wait and the socket is not read.
    func wait() {
        if flow.wait() { socket.readGate.pauseReading() }
    }

    /// The step finished: handle the messages that arrived meanwhile, in order (one may start another step).
    func resume() {
        if flow.resume() { socket.readGate.resumeReading() }
        while let message = flow.next() { handle(message) }
        if flow.finishIfIdle() { finishSession() }
    }

    /// The channel is gone and nothing is in flight: the hub forgets the session, then the registry the
    /// connection (in that order, so that shutdown waits for both).
    func finishSession() {
        let registry = environment.registry
        let id = facts.id
        // The session's overflow closure refers to this handler: let go of it, or the two keep each other.
        let session = self.session
        self.session = nil
        guard let session else {
            registry.unregister(id)
            return
        }
        let handler = environment.handler
        Task {
            await handler.sessionClosed(session)
            registry.unregister(id)
        }
    }
}

extension ConnectionHandler {
    /// Puts a bridge connection on an upgraded channel (see
    /// ``WebSocketEndpoint/install(on:environment:remoteAddress:makeHandler:)``).
    static func install(on channel: any Channel, environment: ConnectionEnvironment, setup: ConnectionSetup) throws {
        try WebSocketEndpoint.install(on: channel, environment: environment, remoteAddress: setup.remoteAddress) { id, socket, logger in
            let facts = ConnectionFacts(id: id, loop: channel.eventLoop, environment: environment, setup: setup, logger: logger)
            let handler = ConnectionHandler(facts: facts, socket: socket)
            return (handler, { handler.requestClose(code: $0, reason: $1) })
        }
    }
}
