import BridgeProtocol

/// An error from talking to Codex: not installed, gone, too slow, or an error answer from `codex app-server`.
///
/// Switch on ``code`` (a struct, so that adding a code later breaks no client):
///
///     catch let error as CodexError where error.code == .unavailable { ... }
public struct CodexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case unavailable, exited, timeout, rpc, protocolViolation
        }
        private let base: Base

        /// Codex is not installed or not running (the message says how to install it when it is missing).
        public static let unavailable = Code(base: .unavailable)
        /// The `codex app-server` child exited (or was restarted) before it answered.
        public static let exited = Code(base: .exited)
        /// No answer within the request's timeout.
        public static let timeout = Code(base: .timeout)
        /// Codex answered with a JSON-RPC error; see ``CodexError/rpcCode`` and ``CodexError/message``.
        public static let rpc = Code(base: .rpc)
        /// Codex sent something that is not JSON-RPC as this client knows it.
        public static let protocolViolation = Code(base: .protocolViolation)

        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A human-readable explanation (for `.rpc`, Codex's own message).
    public let message: String
    /// For `.rpc`: the JSON-RPC error code Codex answered (e.g. -32600, -32001 when overloaded).
    public let rpcCode: Int?
    /// For `.rpc`: the error's `data` member, when Codex sent one.
    public let data: JSONValue?

    /// Creates an error; prefer the static factories.
    public init(code: Code, message: String, rpcCode: Int? = nil, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.rpcCode = rpcCode
        self.data = data
    }

    /// Codex is not installed or not running.
    public static func unavailable(_ message: String) -> CodexError { .init(code: .unavailable, message: message) }
    /// The child exited before answering.
    public static func exited(_ message: String) -> CodexError { .init(code: .exited, message: message) }
    /// No answer in time.
    public static func timeout(_ message: String) -> CodexError { .init(code: .timeout, message: message) }
    /// A JSON-RPC error answer from Codex.
    public static func rpc(code: Int, message: String, data: JSONValue? = nil) -> CodexError {
        .init(code: .rpc, message: message, rpcCode: code, data: data)
    }
    /// Codex broke the protocol.
    public static func protocolViolation(_ message: String) -> CodexError {
        .init(code: .protocolViolation, message: message)
    }

    public var description: String {
        if let rpcCode { return "codex error \(rpcCode): \(message)" }
        return "codex \(code): \(message)"
    }
}

extension CodexError {
    /// Codex's answer for a thread (or its rollout) it does not have. Codex 0.163.0 answers every such request
    /// with the generic -32600 and says what is missing only in the message (`thread not found: ID` for
    /// `turn/start` and `turn/interrupt`, `no rollout found for thread id ID` for `thread/resume`), so these
    /// message prefixes are the contract, checked against the real codex in `CodexRealCodexTests`.
    public static let notFoundMessagePrefixes = ["thread not found", "no rollout found"]

    /// Whether Codex answered that the thread the request named does not exist.
    public var isThreadNotFound: Bool {
        guard code == .rpc else { return false }
        let message = self.message.lowercased()
        return Self.notFoundMessagePrefixes.contains { message.hasPrefix($0) }
    }
}
