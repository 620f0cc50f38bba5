import BridgeProtocol

/// Why a ``BridgeClient`` could not connect or stay connected.
///
/// A struct with a ``Code`` (as `ServiceGroupError` does) so new failure kinds do not break callers that switch.
public struct BridgeClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: Sendable, Hashable {
            case invalidAddress, pinMismatch, authenticationFailed, connectionFailed, reconnectFailed, closed, timeout, protocolViolation
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The address or URL could not be understood.
        public static let invalidAddress = Code(.invalidAddress)
        /// The server's TLS certificate is not the pinned one. Never retried.
        public static let pinMismatch = Code(.pinMismatch)
        /// The bridge refused the credential (`unauthorized`, `rate_limited`, `version_unsupported`) or closed
        /// the connection with 1008 (a revoked device). Never retried.
        public static let authenticationFailed = Code(.authenticationFailed)
        /// No candidate address completed the handshake.
        public static let connectionFailed = Code(.connectionFailed)
        /// The connection was lost and every reconnect attempt failed.
        public static let reconnectFailed = Code(.reconnectFailed)
        /// The client was closed.
        public static let closed = Code(.closed)
        /// The bridge did not answer in time.
        public static let timeout = Code(.timeout)
        /// The bridge sent a frame that breaks the protocol (not a JSON object with a `kind`, a known kind with a
        /// missing or mistyped member, a number out of range): the connection was closed. Never retried at once.
        public static let protocolViolation = Code(.protocolViolation)

        public var description: String { "\(value)" }
    }

    /// The kind of failure.
    public let code: Code
    /// A message for a person.
    public let message: String
    /// The bridge's error code, when the bridge said why (a failed `helloAck`).
    public let serverCode: BridgeErrorCode?

    public init(code: Code, message: String, serverCode: BridgeErrorCode? = nil) {
        self.code = code
        self.message = message
        self.serverCode = serverCode
    }

    public var description: String { message }

    /// Whether trying again (later, or another address) can help.
    public var isRetryable: Bool {
        code == .connectionFailed || code == .timeout
    }

    /// The address or URL could not be understood.
    public static func invalidAddress(_ text: String, _ why: String) -> Self {
        Self(code: .invalidAddress, message: "invalid bridge address \"\(text)\": \(why)")
    }

    /// The server presented another certificate than the pinned one.
    public static func pinMismatch(expected: String, actual: String) -> Self {
        Self(
            code: .pinMismatch,
            message: "TLS certificate fingerprint mismatch: expected \(expected), the server presented \(actual). "
                + "The bridge's certificate changed (`codex-bridge tls rotate`) or this is not your bridge; pair again.")
    }

    /// The bridge refused the credential.
    public static func authenticationFailed(_ error: WireError?) -> Self {
        Self(
            code: .authenticationFailed,
            message: "the bridge refused the connection: \(error?.message ?? "unauthorized")"
                + " (\(error?.code.rawValue ?? "unauthorized"))",
            serverCode: error?.code ?? .unauthorized)
    }

    /// The bridge closed the connection for a policy reason (1008), e.g. the device was revoked.
    public static func closedByPolicy(_ reason: String?) -> Self {
        Self(
            code: .authenticationFailed,
            message: "the bridge closed the connection (1008\(reason.map { ": \($0)" } ?? "")); pair again",
            serverCode: .unauthorized)
    }

    /// Nothing answered.
    public static func connectionFailed(_ message: String) -> Self {
        Self(code: .connectionFailed, message: message)
    }

    /// Reconnecting gave up.
    public static func reconnectFailed(attempts: Int, last: String) -> Self {
        Self(code: .reconnectFailed, message: "lost the connection to the bridge; \(attempts) reconnect attempts failed (last: \(last))")
    }

    /// The client was closed.
    public static let closed = Self(code: .closed, message: "the client is closed")

    /// The bridge sent a bad frame (`what` says which member and why); the connection was closed.
    public static func protocolViolation(_ what: String) -> Self {
        Self(code: .protocolViolation, message: "the bridge sent a bad frame (\(what)); the connection was closed")
    }

    /// Nothing in time.
    public static func timeout(_ what: String) -> Self {
        Self(code: .timeout, message: "timed out waiting for \(what)")
    }
}

/// A request the bridge answered with `error`: carries the bridge's code (`not_found`, `conflict`, …).
public struct BridgeRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bridge's error code.
    public let code: BridgeErrorCode
    /// The bridge's message.
    public let message: String
    /// The request's id.
    public let requestId: String
    /// With `forbidden`: the scope the request needs.
    public let scope: Scope?

    public init(code: BridgeErrorCode, message: String, requestId: String, scope: Scope? = nil) {
        self.scope = scope
        self.code = code
        self.message = message
        self.requestId = requestId
    }

    public var description: String { "\(message) (\(code.rawValue))" }
}
