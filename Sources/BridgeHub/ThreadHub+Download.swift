import BridgeProtocol
import CodexControl
import Foundation

extension ThreadHub {
    /// `GET /files`: the resolved path of a file a client may download, decided by the gate exactly as `readFile`
    /// (the thread's cwd inside the roots; the file inside it, symbolic links resolved, a regular file, not in
    /// `.git`). Throws ``HubError`` (`bad_request`, `not_found`, `forbidden_path`) or a ``CodexError``.
    package func downloadablePath(threadId: String, path: String) async throws -> String {
        try Self.checkThreadId(threadId)
        guard !path.isEmpty, path.utf8.count <= 4096, !path.contains("\u{0}") else {
            throw HubError(.badRequest, "path must be 1 to 4096 bytes")
        }
        let request = BridgeRequest.readFile(ReadFile(threadId: threadId, path: path))
        let facts = try await threadFacts(threadId)
        switch gate.decide(request, thread: facts) {
        case .allowed(let resolved?, _): return resolved
        case .allowed(nil, _): throw HubError(.internal, "no path")
        case .refused(let code, let message): throw HubError(code, message)
        }
    }
}
