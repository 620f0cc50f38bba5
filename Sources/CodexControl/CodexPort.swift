import BridgeProtocol

/// What the bridge's hub needs from Codex: requests (``CodexRequesting``), the stream of what Codex sends
/// (notifications, server requests, starts and stops of the child), and answers to Codex's own requests.
/// ``CodexSupervisor`` is the real one; tests drive the hub through a fake.
public protocol CodexPort: CodexRequesting {
    /// Everything Codex sends, in order; iterated by one consumer (the hub).
    var events: CodexStream<CodexEvent> { get }
    /// Answers a request Codex sent (an approval) with a result.
    func respond(to id: CodexRequestID, result: JSONValue) throws
    /// Answers a request Codex sent with a JSON-RPC error.
    func respond(to id: CodexRequestID, errorCode: Int, message: String) throws
    /// True when Codex is a shared app-server other clients (the Codex TUI) use too: threads this bridge did
    /// not start show up, and their turn events arrive only after `thread/resume`.
    var isShared: Bool { get }
}

extension CodexPort {
    public var isShared: Bool { false }
}

extension CodexSupervisor: CodexPort {
    public var isShared: Bool { configuration.server.socketPath != nil }
}
