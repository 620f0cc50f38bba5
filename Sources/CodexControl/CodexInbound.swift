import BridgeProtocol

/// Identifies one server-to-client request (an approval, a question): the child generation it came from and
/// the JSON-RPC `id` Codex gave it, which must be echoed exactly.
///
/// Use it as the key of a pending approval, and pass it back to `respond(to:result:)`; an id from an earlier
/// generation is refused (that child is gone, and the new one reuses the same numbers).
public struct CodexRequestID: Sendable, Hashable, CustomStringConvertible {
    /// The child generation (1 for the first child a supervisor starts) that sent the request.
    public let generation: Int
    /// Codex's own request id (a number or a string), echoed unchanged in the answer.
    public let value: JSONValue

    /// Creates an id; the library makes these for you.
    public init(generation: Int, value: JSONValue) {
        self.generation = generation
        self.value = value
    }

    public var description: String {
        if case .number(let number) = value, let whole = Int64(exactly: number) { return "\(generation):\(whole)" }
        if case .string(let string) = value { return "\(generation):\(string)" }
        return "\(generation):\(value)"
    }
}

/// How a `codex app-server` child ended.
public enum CodexExitReason: Sendable, Hashable, CustomStringConvertible {
    /// The child exited with this status.
    case exited(code: Int32)
    /// The child was killed by this signal.
    case signaled(signal: Int32)
    /// The child could not be started, failed its handshake, broke the protocol, or stopped answering.
    case failed(String)

    public var description: String {
        switch self {
        case .exited(let code): return "codex exited with status \(code)"
        case .signaled(let signal): return "codex was killed by signal \(signal)"
        case .failed(let message): return message
        }
    }
}

/// A message from one `codex app-server` child that is not an answer to one of our requests.
public enum CodexInbound: Sendable, Hashable {
    /// A notification (`turn/started`, `item/agentMessage/delta`, `turn/completed`, ...), its kind read from
    /// the method, params unchanged.
    case notification(CodexNotification)
    /// A notification of one of ``CodexAppServer/Options/relayedMethods`` (the deltas, most of what Codex
    /// sends), read without parsing its params: relay ``CodexRelayedNotification/paramsJSON`` as is.
    case relayed(CodexRelayedNotification)
    /// A request from Codex (`item/commandExecution/requestApproval`, `item/fileChange/requestApproval`, ...).
    /// Answer it with `respond(to: id, result:)`, e.g. `["decision": "accept"]`.
    case serverRequest(id: CodexRequestID, method: String, params: JSONValue)
    /// The child is gone; nothing follows. (A ``CodexSupervisor`` turns this into ``CodexEvent/stopped(generation:reason:)``.)
    case exited(CodexExitReason)
}

/// What a ``CodexSupervisor`` publishes to its one consumer, in order.
public enum CodexEvent: Sendable, Hashable {
    /// A child finished its handshake and answers requests. Generation 1 is the first child; a higher one
    /// follows a restart: threads of earlier generations are no longer loaded (call `threadResume` before
    /// using one again) and their pending server requests are void.
    case started(generation: Int)
    /// A notification or server request of the current child (never `.exited`).
    case inbound(CodexInbound)
    /// The child of `generation` is gone: its running turns failed and its pending server requests are void.
    /// Unless the supervisor is shutting down, a restart with backoff follows.
    case stopped(generation: Int, reason: String)
}
