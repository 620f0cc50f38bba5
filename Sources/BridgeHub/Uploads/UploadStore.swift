import BridgeProtocol
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Attachments sent with `POST /uploads`: stored 0600 in a 0700 directory under the state directory, named by
/// a random id, typed by their bytes. A file lives until the turn that used it ends, or `lifetime` (24 h) after
/// it arrived, whichever comes first.
public final class UploadStore: Sendable {
    /// One stored upload.
    public struct Upload: Sendable, Hashable {
        public var uploadId: String
        public var path: String
        public var mimeType: String
        public var kind: String
        public var size: Int
        var storedAt: ContinuousClock.Instant
    }

    /// Why an upload is refused.
    public struct Refusal: Error, Sendable, Hashable {
        public var code: BridgeErrorCode
        public var message: String
    }

    public let directory: URL
    public let maxBytes: Int
    public let lifetime: Duration
    /// Most uploads held at once (a client that uploads without sending fills no disk).
    public let maxCount: Int
    private let state = Mutex<State>(State())

    private struct State {
        var uploads: [String: Upload] = [:]
        /// Uploads a turn of this thread used, deleted when that turn ends.
        var claimed: [String: Set<String>] = [:]
    }

    /// Prepares `directory` (created 0700; files left by an earlier run are deleted: their turns are over).
    public init(directory: URL, maxBytes: Int = 20 << 20, lifetime: Duration = .seconds(24 * 3600), maxCount: Int = 64) throws {
        self.directory = directory
        self.maxCount = maxCount
        self.maxBytes = maxBytes
        self.lifetime = lifetime
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(directory.path, 0o700)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    /// Stores `data` after checking its size and type.
    public func store(_ data: Data) throws(Refusal) -> Upload {
        guard !data.isEmpty else { throw Refusal(code: .badRequest, message: "the upload is empty") }
        guard data.count <= maxBytes else {
            throw Refusal(code: .tooLarge, message: "the upload is \(data.count) bytes; at most \(maxBytes) are accepted")
        }
        guard let media = MediaSniffer.sniff(data) else {
            throw Refusal(
                code: .unsupportedMedia, message: "not an image (PNG, JPEG, WebP, HEIC) or audio clip (MP3, M4A, WAV, OGG, FLAC, WebM)")
        }
        sweep()
        guard count < maxCount else {
            throw Refusal(code: .rateLimited, message: "\(maxCount) uploads are waiting to be used; send them or wait for them to expire")
        }
        let id = "up-" + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let path = directory.appendingPathComponent("\(id).\(media.fileExtension)").path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw Refusal(code: .internal, message: "cannot store the upload") }
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == data.count else {
            unlink(path)
            throw Refusal(code: .internal, message: "cannot store the upload")
        }
        let upload = Upload(uploadId: id, path: path, mimeType: media.mimeType, kind: media.kind, size: data.count, storedAt: .now)
        state.withLock { $0.uploads[id] = upload }
        return upload
    }

    /// The uploads named, in order; a missing (unknown, used, expired) one is `not_found`.
    public func uploads(_ ids: [String]) throws(Refusal) -> [Upload] {
        sweep()
        guard ids.count <= 10 else { throw Refusal(code: .badRequest, message: "at most 10 attachments per message") }
        return try state.withLock { state throws(Refusal) in
            try ids.map { id throws(Refusal) in
                guard let upload = state.uploads[id] else {
                    throw Refusal(code: .notFound, message: "no upload \(id.prefix(64)) (unknown, already used, or older than a day)")
                }
                return upload
            }
        }
    }

    /// A turn of `threadId` uses these uploads: they are deleted when a turn of that thread ends.
    public func claim(_ ids: [String], for threadId: String) {
        guard !ids.isEmpty else { return }
        state.withLock { $0.claimed[threadId, default: []].formUnion(ids) }
    }

    /// A turn of `threadId` ended: deletes what its turns used.
    public func turnEnded(_ threadId: String) {
        let ids = state.withLock { state -> [Upload] in
            let ids = state.claimed.removeValue(forKey: threadId) ?? []
            return ids.compactMap { state.uploads.removeValue(forKey: $0) }
        }
        for upload in ids { unlink(upload.path) }
    }

    /// Deletes uploads older than `lifetime`.
    public func sweep(now: ContinuousClock.Instant = .now) {
        let expired = state.withLock { state -> [Upload] in
            let old = state.uploads.values.filter { now - $0.storedAt >= lifetime }
            for upload in old { state.uploads[upload.uploadId] = nil }
            return old
        }
        for upload in expired { unlink(upload.path) }
    }

    /// How many uploads are held.
    public var count: Int { state.withLock { $0.uploads.count } }
}
