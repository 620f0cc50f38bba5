import BridgeHub
import BridgeLive
import BridgeProtocol
import Foundation
import Logging
import NIOCore
import NIOWebSocket

/// The bridge protocol on a connection: hello and its token, the session in the hub, requests and acks.
extension ConnectionHandler {
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
            authenticate(.hello(token: token, device: device))
        case .acceptHello(let grant, let version, let hello):
            open(grant, version: version, hello: hello)
        case .awaitConfirmation(let pending):
            awaitConfirmation(pending)
        case .handle(let id, let request):
            start(request, id: id)
        case .live:
            break  // handled where the frame's bytes are (`receiveLive`)
        case .ack(let seq):
            guard let session else { return }
            let handler = environment.handler
            Task { await handler.acknowledged(seq, session: session) }
        }
    }

    /// Checks a hello's token through the ``CredentialCheck``: on the event loop when it can answer at once (the
    /// shared secret, a device token its table knows), else in a task while the connection waits.
    private func authenticate(_ credential: Credential) {
        let check = environment.credentials
        let remote = facts.setup.remoteAddress
        if let outcome = check.checkNow(credential, remoteAddress: remote) {
            perform(machine.authenticated(outcome))
            return
        }
        wait()
        let report = onLoopWith { (handler: ConnectionHandler, outcome: CredentialOutcome) in
            handler.perform(handler.machine.authenticated(outcome))
            // A granted hello keeps the connection waiting while the session opens.
            switch outcome {
            case .refused, .pending: handler.resume()
            case .granted: break
            }
        }
        Task { report(await check.check(credential, remoteAddress: remote)) }
    }

    /// A pairing waits for the workstation: the phone is told (`pairingPending`) and the connection is read
    /// meanwhile (so that a phone that goes away is noticed and its pairing forgotten; what it sends before the
    /// `helloAck` is ignored). It stops counting as unauthenticated: it presented a valid code.
    private func awaitConfirmation(_ pending: PendingPairing) {
        send(
            .pairingPending(
                PairingPending(deviceId: pending.deviceId, check: pending.check, expiresAt: pending.expiresAt.timeIntervalSince1970)))
        if let channel = context?.channel { environment.preAuth?.release(channel) }
        guard let key = flow.reserve() else { return }
        let check = environment.credentials
        let report = onLoopWith { (handler: ConnectionHandler, outcome: Result<Grant, WireError>) in
            if handler.flow.finished(key) {
                handler.finishSession()
                return
            }
            guard handler.flow.isOpen else { return }
            switch outcome {
            case .success(let grant):
                handler.wait()
                handler.perform(handler.machine.authenticated(.granted(grant)))
            case .failure(let error):
                handler.perform(handler.machine.confirmationRefused(error))
            }
        }
        flow.started(Task { report(await check.awaitConfirmation(pending)) }, key: key)
    }

    /// Opens the session: sends the `helloAck`, registers the session with the hub and lets it replay what the
    /// client missed; messages that arrive meanwhile wait. A session that restores nothing gets its ack at once,
    /// on the event loop, from the hub's snapshot (``RequestHandling/immediateOpening(for:principal:)``), and is
    /// registered after it; any other is opened by the hub first, which captures the seam of its replay.
    private func open(_ grant: Grant, version: Int, hello: Hello) {
        wait()
        helloTimer?.cancel()
        helloTimer = nil
        let principal = grant.principal
        var sessionLogger = logger
        if let deviceId = principal.deviceId { sessionLogger[metadataKey: "bridge.device.id"] = "\(deviceId)" }
        let live = LiveChannel(limits: environment.configuration.live, transport: socket.outbox)
        socket.outbox.onBinaryTaken { live.taken(bytes: $0) }
        let session = ClientSession(
            id: facts.id, principal: principal, hello: hello, remoteAddress: facts.setup.remoteAddress, logger: sessionLogger,
            sink: socket.outbox, scopes: grant.scopes, live: live, onOverflow: onLoop { $0.overflowed() }
        )
        self.session = session
        if let channel = context?.channel {
            environment.preAuth?.release(channel)
            // Authenticated: the pre-authentication guard has nothing more to watch (it would see every frame).
            if let guardHandler = try? channel.pipeline.syncOperations.handler(type: PreAuthGuard.self) {
                channel.pipeline.syncOperations.removeHandler(guardHandler, promise: nil)
            }
        }
        environment.registry.authenticated(facts.id, as: principal)
        let newDeviceToken = grant.newDeviceToken
        let handler = environment.handler
        let server = environment.configuration.server
        let opened = onLoop { $0.resume() }
        let acknowledge: @Sendable (SessionOpening) -> Void = { [sessionLogger] opening in
            let ack = HelloAck(
                version: version, ok: true, server: server, versions: Array(ProtocolVersion.supported),
                deviceId: principal.deviceId, deviceToken: newDeviceToken, lastSeq: opening.lastSeq, resume: opening.resume,
                restoredSubscriptions: opening.restoredSubscriptions, policy: opening.policy, scopes: session.scopes,
                machines: opening.machines, previewPort: opening.previewPort, live: live.info
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
        guard let key = flow.reserve() else {
            send(.error(ErrorMessage(id: id, code: .rateLimited, message: "too many requests in flight (max \(Self.maxRequestsInFlight))")))
            return
        }
        let handler = environment.handler
        let finished = onLoop { if $0.flow.finished(key) { $0.finishSession() } }
        flow.started(
            Task {
                let answer = await handler.handle(request, id: id, session: session)
                session.send(answer)
                finished()
            }, key: key)
    }

    /// A binary frame of an authenticated session: the live channel's (BRIDGE.md "Live channel").
    func receiveLive(_ data: ByteBuffer) {
        guard let live = session?.live else { return }
        switch live.received(data) {
        case .accepted: break
        case .refused(let error): send(.error(error))
        case .flooded:
            logger.warning("Closing a client that flooded a paused live stream")
            requestClose(code: BridgeCloseCode.policyViolation, reason: "live stream flooded")
        }
    }
}
