import BridgeHub
import BridgeProtocol
import Foundation

/// The protocol rules of one connection, without sockets: awaiting hello → authenticating (→ waiting for the
/// workstation to confirm a pairing) → ready → closed.
///
/// Every input returns the action the connection must perform; the state machine never does I/O.
struct ConnectionStateMachine {
    enum State: Equatable {
        /// Waiting for `hello`. `preauthenticated` is set when the upgrade carried a valid Bearer token.
        case awaitingHello(preauthenticated: Grant?)
        /// `hello` received, its token being checked (or, for a pairing the workstation must confirm, its
        /// decision awaited).
        case authenticating(version: Int)
        /// Handshake complete.
        case ready(principal: Principal, version: Int)
        /// Closing or closed; every further input is ignored.
        case closed
    }

    enum Action: Equatable {
        /// Nothing to do.
        case none
        /// Send one frame.
        case send(ServerMessage)
        /// Check `token` and report back with `authenticated(_:)`.
        case authenticate(token: String, device: DeviceInfo?, hello: Hello)
        /// The handshake succeeded: send `helloAck` built from what the credential granted.
        case acceptHello(Grant, version: Int, hello: Hello)
        /// A pairing waits for the workstation: send `pairingPending`, wait for the decision and report it with
        /// `authenticated(_:)` (allowed) or `confirmationRefused(_:)`.
        case awaitConfirmation(PendingPairing)
        /// Run a request; answer it with exactly one frame carrying `id`.
        case handle(id: String, request: BridgeRequest)
        /// Record a client's read position.
        case ack(seq: Int64)
        /// Optionally send a frame, then close with `code`.
        case close(ServerMessage?, code: UInt16, reason: String)
        /// Hand the binary frame to the session's live channel.
        case live
    }

    private(set) var state: State
    private var pendingHello: Hello?

    init(preauthenticated: Grant? = nil) {
        self.state = .awaitingHello(preauthenticated: preauthenticated)
    }

    var isReady: Bool {
        if case .ready = state { return true }
        return false
    }

    var principal: Principal? {
        if case .ready(let principal, _) = state { return principal }
        return nil
    }

    /// A text frame arrived.
    mutating func receivedText(_ data: Data) -> Action {
        switch state {
        case .closed, .authenticating:
            return .none
        case .awaitingHello(let preauthenticated):
            let message: ClientMessage
            do {
                message = try ClientMessage.decode(data)
            } catch {
                return closeBeforeHello("expected hello: \(error.message)")
            }
            guard case .hello(let hello) = message else {
                return closeBeforeHello("expected hello, got '\(message.kind)'")
            }
            return receivedHello(hello, preauthenticated: preauthenticated)
        case .ready(_, let version):
            let message: ClientMessage
            do {
                message = try ClientMessage.decode(data)
            } catch {
                return .send(.error(ErrorMessage(id: error.id, code: error.code, message: error.message)))
            }
            switch message {
            case .hello:
                return .send(
                    .error(
                        ErrorMessage(
                            id: nil, code: .alreadyAuthenticated, message: "the handshake is already complete (version \(version))")))
            case .ping(let ping):
                return .send(.pong(Pong(nonce: ping.nonce)))
            case .ack(let ack):
                return .ack(seq: ack.seq)
            case .request(let id, let request):
                return .handle(id: id, request: request)
            }
        }
    }

    /// A binary frame arrived.
    mutating func receivedBinary() -> Action {
        switch state {
        case .closed, .authenticating:
            return .none
        case .awaitingHello:
            return closeBeforeHello("expected hello, got a binary frame")
        case .ready:
            return .live
        }
    }

    /// The hello timer fired.
    mutating func helloTimedOut() -> Action {
        guard case .awaitingHello = state else { return .none }
        state = .closed
        return .close(nil, code: BridgeCloseCode.policyViolation, reason: "no hello in time")
    }

    /// The ``CredentialCheck`` of the pending hello's token finished.
    mutating func authenticated(_ outcome: CredentialOutcome) -> Action {
        guard case .authenticating(let version) = state, let hello = pendingHello else { return .none }
        pendingHello = nil
        switch outcome {
        case .granted(let grant):
            state = .ready(principal: grant.principal, version: version)
            return .acceptHello(grant, version: version, hello: hello)
        case .pending(let pending):
            // Still authenticating: the hello waits for the workstation's decision.
            pendingHello = hello
            return .awaitConfirmation(pending)
        case .refused(let rateLimited):
            state = .closed
            let error =
                rateLimited
                ? WireError(code: .rateLimited, message: "too many failed authentications from this address; try again later")
                : WireError(code: .unauthorized, message: "invalid, expired or revoked token")
            return .close(
                .helloAck(HelloAck(version: version, ok: false, error: error)),
                code: BridgeCloseCode.policyViolation,
                reason: error.code.rawValue
            )
        }
    }

    /// A pairing that waited for the workstation was denied or not confirmed in time: a failed `helloAck`, then 1008.
    mutating func confirmationRefused(_ error: WireError) -> Action {
        guard case .authenticating(let version) = state, pendingHello != nil else { return .none }
        pendingHello = nil
        state = .closed
        let reason =
            error.code == .pairingDenied ? "pairing denied" : error.code == .pairingExpired ? "pairing not confirmed" : error.code.rawValue
        return .close(.helloAck(HelloAck(version: version, ok: false, error: error)), code: BridgeCloseCode.policyViolation, reason: reason)
    }

    /// The connection is being closed by the server (shutdown, revocation, overflow).
    mutating func closing() {
        state = .closed
    }

    private mutating func receivedHello(_ hello: Hello, preauthenticated: Grant?) -> Action {
        guard hello.version >= ProtocolVersion.supported.lowerBound else {
            state = .closed
            let error = WireError(
                code: .versionUnsupported,
                message:
                    "protocol version \(hello.version) is not supported; this server speaks \(ProtocolVersion.supported.lowerBound)...\(ProtocolVersion.supported.upperBound)"
            )
            return .close(
                .helloAck(HelloAck(version: ProtocolVersion.current, ok: false, error: error, versions: Array(ProtocolVersion.supported))),
                code: BridgeCloseCode.policyViolation,
                reason: error.code.rawValue
            )
        }
        let version = min(hello.version, ProtocolVersion.supported.upperBound)
        if let token = hello.token {
            state = .authenticating(version: version)
            pendingHello = hello
            return .authenticate(token: token, device: hello.device, hello: hello)
        }
        if let preauthenticated {
            state = .ready(principal: preauthenticated.principal, version: version)
            return .acceptHello(preauthenticated, version: version, hello: hello)
        }
        state = .closed
        let error = WireError(code: .unauthorized, message: "hello needs a token (or an Authorization: Bearer header on the upgrade)")
        return .close(
            .helloAck(HelloAck(version: version, ok: false, error: error)), code: BridgeCloseCode.policyViolation, reason: "unauthorized")
    }

    private mutating func closeBeforeHello(_ reason: String) -> Action {
        state = .closed
        return .close(nil, code: BridgeCloseCode.policyViolation, reason: String(reason.prefix(120)))
    }
}
