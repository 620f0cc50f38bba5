import BridgeProtocol
import CodexControl
import ConfinedFiles
import Foundation

/// `GET /files`: the file a client may download, opened once as `readFile` opens it (the thread's cwd inside the
/// roots; the file below it through a descriptor, no link out of it, a regular file, not in `.git`), ready to be
/// streamed from its descriptor.
enum FileDownloads {
    /// Throws ``HubError`` (`bad_request`, `not_found`, `forbidden_path`) or a ``CodexError``.
    static func open(_ path: String, threadId: String, on hub: isolated ThreadHub) async throws -> ConfinedFile {
        try RequestLimits.checkThreadId(threadId)
        guard !path.isEmpty, path.utf8.count <= 4096, !path.contains("\u{0}") else {
            throw HubError(.badRequest, "path must be 1 to 4096 bytes")
        }
        let request = BridgeRequest(.readFile, ReadFile(threadId: threadId, path: path))
        let facts = try await hub.threadFacts(threadId)
        switch hub.gate.decide(request, thread: facts) {
        case .allowed(let cwd?, _): return try await openFile(path, cwd: cwd, roots: hub.gate.roots)
        case .allowed(nil, _): throw HubError(.internal, "no path")
        case .refused(let code, let message): throw HubError(code, message)
        }
    }

    /// Off the hub: opening walks the directories below the cwd.
    @concurrent
    private static func openFile(_ path: String, cwd: String, roots: WorkspaceRoots) async throws -> ConfinedFile {
        try WorkspaceFiles.openFile(path, cwd: cwd, roots: roots).file
    }
}
