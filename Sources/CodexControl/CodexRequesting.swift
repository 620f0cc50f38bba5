import BridgeProtocol

/// Something that sends JSON-RPC requests to Codex: a ``CodexAppServer`` or a ``CodexSupervisor``.
/// The typed calls (``threadStart(cwd:model:sandbox:approvalPolicy:approvalsReviewer:timeout:)``, ...) build on it.
public protocol CodexRequesting: Sendable {
    /// Sends `method` with `params` and returns the `result`, or throws a `CodexError`.
    func request(_ method: String, params: JSONValue, timeout: Duration) async throws -> JSONValue
}
