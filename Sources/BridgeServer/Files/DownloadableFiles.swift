import BridgeHub
import ConfinedFiles

/// What `GET /files` needs of the hub: a thread's file opened the way `readFile` opens it (the gate, the
/// thread's directory inside the roots, no link out of it). The route takes this, not the hub, so its own
/// code (bad queries, the error mapping, the streamed body, the headers) is tested in-process without one.
package protocol DownloadableFiles: Sendable {
    /// The file at `path` in thread `threadId`'s directory, opened once.
    /// - Throws: ``HubError`` (`bad_request`, `not_found`, `forbidden_path`, `forbidden`) or a `CodexError`.
    func downloadableFile(threadId: String, path: String) async throws -> ConfinedFile
}

/// The hub behind the routes' small protocols, without the hub taking them on: the routes know their protocols,
/// the hub knows nothing of the routes.
package struct HubRoutePort: DownloadableFiles, HubGauges {
    let hub: ThreadHub

    package init(_ hub: ThreadHub) { self.hub = hub }

    package func downloadableFile(threadId: String, path: String) async throws -> ConfinedFile {
        try await hub.downloadableFile(threadId: threadId, path: path)
    }

    package func metricsSnapshot() async -> (approvalsPending: Int, threadsRunning: Int) {
        await hub.metricsSnapshot()
    }
}
