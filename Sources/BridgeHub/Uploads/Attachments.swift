import BridgeProtocol

/// Attachments: `attachments: [uploadId]` on `startThread`/`sendMessage` become Codex `localImage` /
/// `localAudio` inputs; the uploads a turn used are deleted when a turn of its thread ends (``UploadStore``).
struct Attachments: Sendable {
    /// nil: this bridge takes no uploads (any attachment is `not_found`).
    let uploads: UploadStore?

    /// Codex input items for a request's `attachments`; each must name an upload this bridge holds.
    func inputs(_ ids: [String]?) throws -> [JSONValue] {
        guard let ids, !ids.isEmpty else { return [] }
        guard let uploads else { throw HubError(.notFound, "this bridge takes no uploads") }
        do {
            return try uploads.uploads(ids).map { upload in
                [
                    "type": .string(upload.kind == "audio" ? "localAudio" : "localImage"),
                    "path": .string(upload.path),
                ]
            }
        } catch {
            throw HubError(error.code, error.message)
        }
    }

    /// A turn of `threadId` was started (or steered) with these attachments.
    func claim(_ ids: [String]?, for threadId: String) {
        guard let ids, let uploads else { return }
        uploads.claim(ids, for: threadId)
    }

    /// A turn of `threadId` ended: the uploads its turns used go.
    func turnEnded(_ threadId: String) {
        uploads?.turnEnded(threadId)
    }
}
