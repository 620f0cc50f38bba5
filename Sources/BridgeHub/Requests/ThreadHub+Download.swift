import BridgeProtocol
import CodexControl
import ConfinedFiles
import Foundation

extension ThreadHub {
    /// `GET /files`: the file a client may download, opened once as `readFile` opens it (the thread's cwd
    /// inside the roots; the file below it through a descriptor, no link out of it, a regular file, not in
    /// `.git`), ready to be streamed from its descriptor. Throws ``HubError`` (`bad_request`, `not_found`,
    /// `forbidden_path`) or a ``CodexError``.
    package func downloadableFile(threadId: String, path: String) async throws -> ConfinedFile {
        try Self.checkThreadId(threadId)
        guard !path.isEmpty, path.utf8.count <= 4096, !path.contains("\u{0}") else {
            throw HubError(.badRequest, "path must be 1 to 4096 bytes")
        }
        let request = BridgeRequest(.readFile, ReadFile(threadId: threadId, path: path))
        let facts = try await threadFacts(threadId)
        switch gate.decide(request, thread: facts) {
        case .allowed(let cwd?, _): return try await Self.open(path, cwd: cwd, roots: gate.roots)
        case .allowed(nil, _): throw HubError(.internal, "no path")
        case .refused(let code, let message): throw HubError(code, message)
        }
    }

    @concurrent
    private static func open(_ path: String, cwd: String, roots: WorkspaceRoots) async throws -> ConfinedFile {
        try WorkspaceFiles.openFile(path, cwd: cwd, roots: roots).file
    }
}
