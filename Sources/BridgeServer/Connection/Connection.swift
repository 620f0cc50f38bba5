import BridgeProtocol
import Foundation
import Logging
import NIOCore
import NIOWebSocket
import Synchronization
import WSCore

/// One WebSocket client: runs the handshake state machine, answers requests, writes its outbox.
final class Connection: Sendable {
    private let id: UInt64
    private let configuration: BridgeServerConfiguration
    private let authenticator: Authenticator
    private let rateLimiter: AuthRateLimiter
    private let handler: any RequestHandling
    private let registry: ConnectionRegistry
    private let remoteAddress: String
    private let channel: any Channel
    private let preAuth: PreAuthLedger?
    private let logger: Logger
    private let outbox: Outbox
    private let machine: Mutex<ConnectionStateMachine>
    private let session = Mutex<ClientSession?>(nil)
    private let upgradeDeviceToken: String?
    private let requestsInFlight = Atomic<Int>(0)
    /// WSCore's writer, for the close handshake (data frames go through the ``FrameWriterHandler``).
    private let outbound = Mutex<WebSocketOutboundWriter?>(nil)
    private let closerStarted = Atomic<Bool>(false)
    private let helloTimer = Mutex<Scheduled<Void>?>(nil)

    /// Most requests one connection may have running at once; more are answered `rate_limited`.
    static let maxRequestsInFlight = 64

    init(
        id: UInt64,
        configuration: BridgeServerConfiguration,
        authenticator: Authenticator,
        rateLimiter: AuthRateLimiter,
        handler: any RequestHandling,
        registry: ConnectionRegistry,
        preauthenticated: AuthenticationResult?,
        remoteAddress: String,
        channel: any Channel,
        preAuth: PreAuthLedger? = nil,
        logger: Logger
    ) {
        self.id = id
        self.configuration = configuration
        self.authenticator = authenticator
        self.rateLimiter = rateLimiter
        self.handler = handler
        self.registry = registry
        self.remoteAddress = remoteAddress
        self.channel = channel
        self.preAuth = preAuth
        var logger = logger
        logger[metadataKey: "bridge.connection.id"] = "\(id)"
        logger[metadataKey: "bridge.remote"] = "\(remoteAddress)"
        self.logger = logger
        self.outbox = Outbox(capacity: configuration.outboxCapacity)
        if case .accepted(let principal, let token) = preauthenticated {
            self.machine = Mutex(ConnectionStateMachine(preauthenticated: principal))
            self.upgradeDeviceToken = token
        } else {
            self.machine = Mutex(ConnectionStateMachine())
            self.upgradeDeviceToken = nil
        }
    }

    /// Asks the connection to close after the frames already queued.
    func requestClose(code: UInt16, reason: String) {
        machine.withLock { $0.closing() }
        enqueueClose(code: code, reason: reason)
    }

    /// Queues a close after the frames already queued and starts the task that performs it once they are
    /// written. A connection has no writer task of its own: this one exists only while it closes.
    private func enqueueClose(code: UInt16, reason: String) {
        outbox.enqueueClose(code: code, reason: reason)
        guard closerStarted.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        Task {
            if case .close(let code, let reason) = await outbox.closeReached(), let outbound = outbound.withLock({ $0 }) {
                try? await outbound.close(.init(codeNumber: Int(code)), reason: Self.truncated(reason))
            }
            // Wait for the peer's close (the read loop then ends) but not forever.
            try? await Task.sleep(for: configuration.closeTimeout)
            channel.close(promise: nil)
        }
    }

    /// Runs the connection until it closes.
    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        logger.debug("WebSocket connected")
        self.outbound.withLock { $0 = outbound }
        let outbox = self.outbox
        let channel = self.channel
        // No need to wait: frames queued before the writer is attached are drained when it is.
        channel.eventLoop.execute {
            do {
                try FrameWriterHandler.attach(outbox, to: channel)
            } catch {
                channel.close(promise: nil)
            }
        }
        let timeout = channel.eventLoop.scheduleTask(in: TimeAmount(configuration.helloTimeout)) {
            self.perform(self.machine.withLock { $0.helloTimedOut() })
        }
        helloTimer.withLock { $0 = timeout }
        // The connection ends when its reader does: the peer closed, or the channel was closed.
        do {
            try await readLoop(inbound)
        } catch {
            timeout.cancel()
            await ended()
            throw error
        }
        timeout.cancel()
        await ended()
    }

    private func ended() async {
        outbox.finish()
        logger.debug("WebSocket closed")
        if let session = session.withLock({ $0 }) {
            await handler.sessionClosed(session)
        }
    }

    private func readLoop(_ inbound: WebSocketInboundStream) async throws {
        try await withThrowingDiscardingTaskGroup { requests in
            for try await message in inbound.messages(maxSize: configuration.maxMessageBytes) {
                let action: ConnectionStateMachine.Action
                switch message {
                case .text(let text):
                    action = machine.withLock { $0.receivedText(Data(text.utf8)) }
                case .binary:
                    action = machine.withLock { $0.receivedBinary() }
                }
                try await handle(action, requests: &requests)
            }
            requests.cancelAll()
        }
    }

    private func handle(_ action: ConnectionStateMachine.Action, requests: inout ThrowingDiscardingTaskGroup<any Error>) async throws {
        switch action {
        case .authenticate(let token, let device, _):
            // High-entropy credentials first and unthrottled; then a pairing code, the only guessable one,
            // under the per-address limit (and the per-code cap in the registry).
            var result = await authenticator.authenticateCredential(token: token, remoteAddress: remoteAddress)
            var limited = false
            if case .rejected = result {
                if Authenticator.isPairingCode(token), rateLimiter.beginAttempt(remoteAddress) {
                    result = await authenticator.redeem(code: token, device: device, remoteAddress: remoteAddress)
                    if case .accepted = result { rateLimiter.succeeded(remoteAddress) }
                } else {
                    limited = rateLimiter.isLimited(remoteAddress)
                    if !Authenticator.isPairingCode(token) { rateLimiter.recordFailure(remoteAddress) }
                }
            }
            if case .rejected = result {
                logger.notice("Authentication failed", metadata: ["bridge.auth.rate_limited": "\(limited)"])
            }
            let next = machine.withLock { $0.authenticated(result, rateLimited: limited) }
            try await handle(next, requests: &requests)
        case .acceptHello(let principal, let version, let newDeviceToken, let hello):
            await open(principal: principal, version: version, newDeviceToken: newDeviceToken ?? upgradeDeviceToken, hello: hello)
        case .handle(let id, let request):
            guard let session = session.withLock({ $0 }) else { return }
            guard requestsInFlight.add(1, ordering: .relaxed).newValue <= Self.maxRequestsInFlight else {
                requestsInFlight.subtract(1, ordering: .relaxed)
                session.send(
                    .error(
                        ErrorMessage(id: id, code: .rateLimited, message: "too many requests in flight (max \(Self.maxRequestsInFlight))")))
                return
            }
            requests.addTask {
                defer { self.requestsInFlight.subtract(1, ordering: .relaxed) }
                let answer = await self.handler.handle(request, id: id, session: session)
                session.send(answer)
            }
        case .ack(let seq):
            if let session = session.withLock({ $0 }) {
                await handler.acknowledged(seq, session: session)
            }
        default:
            perform(action)
        }
    }

    /// Performs the actions that need no waiting.
    private func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .none, .authenticate, .acceptHello, .handle, .ack:
            break
        case .send(let message):
            send(message)
        case .close(let message, let code, let reason):
            if let message { send(message) }
            logger.debug("Closing", metadata: ["bridge.close.code": "\(code)", "bridge.close.reason": "\(reason)"])
            enqueueClose(code: code, reason: reason)
        }
    }

    private func send(_ message: ServerMessage) {
        if case .helloAck(let ack) = message { BridgeMetrics.shared.handshake(ack) }
        guard let text = try? message.encodedText() else { return }
        if outbox.enqueue(text) == .overflow {
            overflowed()
        }
    }

    private func open(principal: Principal, version: Int, newDeviceToken: String?, hello: Hello) async {
        var sessionLogger = logger
        if let deviceId = principal.deviceId { sessionLogger[metadataKey: "bridge.device.id"] = "\(deviceId)" }
        let session = ClientSession(
            id: id, principal: principal, hello: hello, remoteAddress: remoteAddress, logger: sessionLogger, outbox: outbox,
            onOverflow: { [weak self] in self?.overflowed() }
        )
        self.session.withLock { $0 = session }
        helloTimer.withLock { $0 }?.cancel()
        preAuth?.release(channel)
        registry.authenticated(id, as: principal)
        let opening = await handler.sessionOpened(session)
        let ack = HelloAck(
            version: version, ok: true, server: configuration.server, versions: Array(ProtocolVersion.supported),
            deviceId: principal.deviceId, deviceToken: newDeviceToken, lastSeq: opening.lastSeq, resume: opening.resume,
            restoredSubscriptions: opening.restoredSubscriptions, policy: opening.policy
        )
        send(.helloAck(ack))
        sessionLogger.info("Client authenticated", metadata: ["bridge.auth": principal.deviceId == nil ? "shared-secret" : "device"])
        await handler.sessionReady(session)
    }

    /// The client stopped reading and its queue filled: drop it without waiting on its socket.
    private func overflowed() {
        machine.withLock { $0.closing() }
        logger.warning(
            "Closing a client that does not read (outbound queue full)", metadata: ["bridge.outbox.capacity": "\(outbox.capacity)"])
        outbox.finish()
        let channel = self.channel
        var data = channel.allocator.buffer(capacity: 64)
        data.write(webSocketErrorCode: .init(codeNumber: Int(BridgeCloseCode.tryAgainLater)))
        data.writeString("outbound queue full; reconnect and resume")
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
        channel.eventLoop.execute {
            channel.writeAndFlush(frame, promise: nil)
            channel.eventLoop.scheduleTask(in: .milliseconds(200)) { channel.close(promise: nil) }
        }
    }

    /// A close reason must fit in 123 bytes of UTF-8.
    static func truncated(_ reason: String) -> String {
        var result = ""
        for character in reason {
            if result.utf8.count + String(character).utf8.count > 120 { break }
            result.append(character)
        }
        return result
    }
}
