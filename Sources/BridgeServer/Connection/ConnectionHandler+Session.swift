import BridgeHub
import BridgeProtocol
import Foundation
import Logging
import NIOCore
import NIOWebSocket

/// The bridge protocol on a connection: hello and its token, the session in the hub, requests and acks.
extension ConnectionHandler {
    func receivedText(_ text: String) {
        perform(machine.receivedText(Data(text.utf8)))
    }

    /// Performs what the state machine asked for.
    func perform(_ action: ConnectionStateMachine.Action) {
        switch action {
        case .none:
            break
        case .send(let message):
            send(message)
        case .close(let message, let code, let reason):
            if let message {
                if case .helloAck(let ack) = message { BridgeMetrics.shared.handshake(ack) }
                send(message)
            }
            requestClose(code: code, reason: reason)
        case .authenticate(let token, let device, _):
            authenticate(token: token, device: device)
        case .acceptHello(let principal, let version, let newDeviceToken, let scopes, let hello):
            open(principal: principal, version: version, newDeviceToken: newDeviceToken, scopes: scopes, hello: hello)
        case .awaitConfirmation(let pending):
            awaitConfirmation(pending)
        case .handle(let id, let request):
            start(request, id: id)
        case .ack(let seq):
            guard let session else { return }
            let handler = environment.handler
            Task { await handler.acknowledged(seq, session: session) }
        }
    }

    /// Checks a hello's token. The shared secret is checked here, on the event loop; a device token or a pairing
    /// code needs the database, in a task. High-entropy credentials first and unthrottled; then a pairing
    /// code, the only guessable one, under the per-address limit (and the per-code cap in the registry).
    private func authenticate(token: String, device: DeviceInfo?) {
        let authenticator = environment.authenticator
        if authenticator.isSharedSecret(token) {
            perform(machine.authenticated(.accepted(.sharedSecret)))
            return
        }
        busy = true
        let rateLimiter = environment.rateLimiter
        let remote = setup.remoteAddress
        let logger = self.logger
        let report = onLoopWith { (handler: ConnectionHandler, outcome: (AuthenticationResult, Bool)) in
            handler.perform(handler.machine.authenticated(outcome.0, rateLimited: outcome.1))
            // An accepted hello keeps the connection busy while the session opens.
            switch outcome.0 {
            case .rejected, .pending: handler.resume()
            case .accepted: break
            }
        }
        Task {
            var result = await authenticator.authenticateCredential(token: token, remoteAddress: remote)
            var limited = false
            if case .rejected = result {
                if Authenticator.isPairingCode(token), rateLimiter.beginAttempt(remote) {
                    result = await authenticator.redeem(code: token, device: device, remoteAddress: remote)
                    // A valid code is not a failure, whether it pairs at once or waits for the workstation.
                    switch result {
                    case .accepted, .pending: rateLimiter.succeeded(remote)
                    case .rejected: break
                    }
                } else {
                    limited = rateLimiter.isLimited(remote)
                    if !Authenticator.isPairingCode(token) { rateLimiter.recordFailure(remote) }
                }
            }
            if case .rejected = result {
                logger.notice("Authentication failed", metadata: ["bridge.auth.rate_limited": "\(limited)"])
            }
            report((result, limited))
        }
    }

    /// A pairing waits for the workstation: the phone is told (`pairingPending`) and the connection is read
    /// meanwhile (so that a phone that goes away is noticed and its pairing forgotten; what it sends before the
    /// `helloAck` is ignored). It stops counting as unauthenticated: it presented a valid code.
    private func awaitConfirmation(_ pending: PendingPairing) {
        send(
            .pairingPending(
                PairingPending(deviceId: pending.deviceId, check: pending.check, expiresAt: pending.expiresAt.timeIntervalSince1970)))
        if let channel = context?.channel { environment.preAuth?.release(channel) }
        let authenticator = environment.authenticator
        let report = onLoopWith { (handler: ConnectionHandler, outcome: ConfirmationOutcome) in
            handler.confirmation = nil
            guard !handler.ended else { return }
            switch outcome {
            case .allowed(let result):
                handler.busy = true
                handler.perform(handler.machine.authenticated(result))
            case .refused(let error):
                handler.perform(handler.machine.confirmationRefused(error))
            }
        }
        confirmation = Task {
            report(await authenticator.awaitConfirmation(pending))
        }
    }

    /// Opens the session: sends the `helloAck`, registers the session with the hub and lets it replay what the
    /// client missed; messages that arrive meanwhile wait. A session that restores nothing gets its ack at once,
    /// on the event loop, from the hub's snapshot (``RequestHandling/immediateOpening(for:principal:)``), and is
    /// registered after it; any other is opened by the hub first, which captures the seam of its replay.
    private func open(principal: Principal, version: Int, newDeviceToken: String?, scopes: Scopes?, hello: Hello) {
        busy = true
        helloTimer?.cancel()
        helloTimer = nil
        var sessionLogger = logger
        if let deviceId = principal.deviceId { sessionLogger[metadataKey: "bridge.device.id"] = "\(deviceId)" }
        var upgradeScopes: Scopes?
        if case .accepted(_, _, let scopes) = setup.preauthenticated { upgradeScopes = scopes }
        let session = ClientSession(
            id: id, principal: principal, hello: hello, remoteAddress: setup.remoteAddress, logger: sessionLogger, sink: outbox,
            scopes: scopes ?? upgradeScopes, onOverflow: onLoop { $0.overflowed() }
        )
        self.session = session
        if let channel = context?.channel {
            environment.preAuth?.release(channel)
            // Authenticated: the pre-authentication guard has nothing more to watch (it would see every frame).
            if let guardHandler = try? channel.pipeline.syncOperations.handler(type: PreAuthGuard.self) {
                channel.pipeline.syncOperations.removeHandler(guardHandler, promise: nil)
            }
        }
        environment.registry.authenticated(id, as: principal)
        var upgradeToken: String?
        if case .accepted(_, let token, _) = setup.preauthenticated { upgradeToken = token }
        let newDeviceToken = newDeviceToken ?? upgradeToken
        let handler = environment.handler
        let server = environment.configuration.server
        let opened = onLoop { $0.resume() }
        let acknowledge: @Sendable (SessionOpening) -> Void = { [sessionLogger] opening in
            let ack = HelloAck(
                version: version, ok: true, server: server, versions: Array(ProtocolVersion.supported),
                deviceId: principal.deviceId, deviceToken: newDeviceToken, lastSeq: opening.lastSeq, resume: opening.resume,
                restoredSubscriptions: opening.restoredSubscriptions, policy: opening.policy, scopes: session.scopes,
                machines: opening.machines
            )
            BridgeMetrics.shared.handshake(ack)
            session.send(.helloAck(ack))
            sessionLogger.info("Client authenticated", metadata: ["bridge.auth": principal.deviceId == nil ? "shared-secret" : "device"])
        }
        if let opening = handler.immediateOpening(for: hello, principal: principal) {
            acknowledge(opening)
            Task {
                await handler.sessionRegistered(session)
                opened()
            }
            return
        }
        Task {
            acknowledge(await handler.sessionOpened(session))
            await handler.sessionReady(session)
            opened()
        }
    }

    /// Runs one request in a task; its answer is queued from there.
    private func start(_ request: BridgeRequest, id: String) {
        guard let session else { return }
        guard requests.count < Self.maxRequestsInFlight else {
            send(.error(ErrorMessage(id: id, code: .rateLimited, message: "too many requests in flight (max \(Self.maxRequestsInFlight))")))
            return
        }
        let key = nextRequest
        nextRequest += 1
        let handler = environment.handler
        let finished = onLoop { $0.requestFinished(key) }
        requests[key] = Task {
            let answer = await handler.handle(request, id: id, session: session)
            session.send(answer)
            finished()
        }
    }

    private func requestFinished(_ key: UInt64) {
        requests[key] = nil
        finishSessionIfIdle()
    }

    /// The waiting step finished: handle the messages that arrived meanwhile, in order.
    func resume() {
        busy = false
        while !busy, !waiting.isEmpty, !ended {
            receivedMessage(waiting.removeFirst())
        }
        finishSessionIfIdle()
    }

    /// Once the channel is gone and nothing is in flight, the hub forgets the session and the registry the
    /// connection (in that order, so that shutdown waits for both).
    func finishSessionIfIdle() {
        guard ended, !busy, requests.isEmpty, !sessionFinished else { return }
        sessionFinished = true
        let registry = environment.registry
        let id = self.id
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
    struct ShuttingDown: Error {}

    /// Puts a connection on an upgraded channel (on its event loop): NIO's upgrader has added the frame decoder
    /// and encoder; the frame check, the aggregator (a message of at most `maxMessageBytes`, in at most 1024
    /// fragments) and the connection go after the decoder; the connection's frames enter below the encoder, as bytes
    /// (``FrameBytesWriter``).
    static func install(on channel: any Channel, environment: ConnectionEnvironment, setup: ConnectionSetup) throws {
        channel.eventLoop.preconditionInEventLoop()
        var handler: ConnectionHandler?
        let registered = environment.registry.register { id in
            let made = ConnectionHandler(id: id, loop: channel.eventLoop, environment: environment, setup: setup)
            handler = made
            let bound = NIOLoopBound(made, eventLoop: channel.eventLoop)
            let loop = channel.eventLoop
            return { code, reason in loop.execute { bound.value.requestClose(code: code, reason: reason) } }
        }
        guard registered != nil, let handler else { throw ShuttingDown() }
        let aggregator = NIOWebSocketFrameAggregator(
            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1024,
            maxAccumulatedFrameSize: environment.configuration.maxMessageBytes)
        let encoder = try channel.pipeline.syncOperations.handler(type: WebSocketFrameEncoder.self)
        try channel.pipeline.syncOperations.addHandler(handler.writer, position: .before(encoder))
        try channel.pipeline.syncOperations.addHandlers([InboundFrameCheck(), aggregator, handler, handler.readGate])
        // Room for a burst of events before the channel reports itself unwritable (each change is a pipeline
        // event and a pause of the drain); the outbox bounds what waits beyond it.
        channel.setOption(ChannelOptions.writeBufferWaterMark, value: .init(low: 128 * 1024, high: 512 * 1024))
            .whenFailure { _ in }
    }
}
