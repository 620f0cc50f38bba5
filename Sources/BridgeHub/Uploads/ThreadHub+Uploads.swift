import BridgeProtocol
import Foundation
import Logging

/// Attachments: `attachments: [uploadId]` on `startThread`/`sendMessage` become Codex `localImage` /
/// `localAudio` inputs; the uploads a turn used are deleted when a turn of its thread ends.
extension ThreadHub {
    /// Codex input items for a request's `attachments`; each must name an upload this bridge holds.
    func attachmentInputs(_ ids: [String]?) throws -> [JSONValue] {
        guard let ids, !ids.isEmpty else { return [] }
        guard let uploads = uploads else { throw HubError(.notFound, "this bridge takes no uploads") }
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
    func claimUploads(_ ids: [String]?, for threadId: String) {
        guard let ids, let uploads = uploads else { return }
        uploads.claim(ids, for: threadId)
    }
}
