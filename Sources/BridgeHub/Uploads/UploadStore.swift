import BridgeProtocol
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Attachments sent with `POST /uploads`: stored 0600 in a 0700 directory under the state directory, named by
/// a random id, typed by their bytes. A file lives until the turn that used it ends, or `lifetime` (24 h) after
/// it arrived, whichever comes first.
///
/// The limits (`maxCount` uploads, `maxTotalBytes` bytes) hold at every moment: an upload ``reserve(bytes:)``s
/// its place before its body is read, and the reservation counts until the file is stored or dropped, so
/// concurrent uploads cannot all pass the check and then all be added.
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
    /// Most uploads held at once, stored or arriving (a client that uploads without sending fills no disk).
    public let maxCount: Int
    /// Most bytes held at once, stored or arriving.
    public let maxTotalBytes: Int
    fileprivate let state = Mutex<State>(State())

    fileprivate struct State {
        var uploads: [String: Upload] = [:]
        /// Uploads a turn of this thread used, deleted when that turn ends.
        var claimed: [String: Set<String>] = [:]
        /// Bytes of the stored uploads.
        var storedBytes = 0
        /// Places held for uploads whose bodies are arriving.
        var reservedCount = 0
        var reservedBytes = 0
    }

    /// A place held for one upload while its body arrives (see ``reserve(bytes:)``); given back when the upload
    /// is stored, or when it is dropped unused.
    public final class Reservation: Sendable {
        /// Most bytes the upload may have.
        public let bytes: Int
        private let store: UploadStore
        private let released = Atomic<Bool>(false)

        init(bytes: Int, store: UploadStore) {
            self.bytes = bytes
            self.store = store
        }

        deinit { release() }

        func release() {
            guard take() else { return }
            store.state.withLock { state in
                state.reservedCount -= 1
                state.reservedBytes -= bytes
            }
        }

        /// Whether this call is the one that gives the place back (once).
        fileprivate func take() -> Bool {
            !released.exchange(true, ordering: .acquiringAndReleasing)
        }
    }

    /// Prepares `directory` (created 0700; files left by an earlier run are deleted: their turns are over).
    public init(
        directory: URL, maxBytes: Int = 20 << 20, lifetime: Duration = .seconds(24 * 3600), maxCount: Int = 64, maxTotalBytes: Int? = nil
    ) throws {
        self.directory = directory
        self.maxCount = maxCount
        self.maxTotalBytes = max(maxBytes, maxTotalBytes ?? 256 << 20)
        self.maxBytes = maxBytes
        self.lifetime = lifetime
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(directory.path, 0o700)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    /// Holds a place for an upload of at most `bytes` bytes, before its body is read: `rate_limited` when
    /// `maxCount` uploads are held or arriving, or `bytes` more would pass `maxTotalBytes`; `too_large` when
    /// `bytes` is over `maxBytes`.
    public func reserve(bytes: Int) throws(Refusal) -> Reservation {
        guard bytes >= 0 else { throw Refusal(code: .badRequest, message: "the upload's length is negative") }
        guard bytes <= maxBytes else {
            throw Refusal(code: .tooLarge, message: "the upload is \(bytes) bytes; at most \(maxBytes) are accepted")
        }
        sweep()
        try state.withLock { state throws(Refusal) in
            guard state.uploads.count + state.reservedCount < maxCount else {
                throw Refusal(
                    code: .rateLimited, message: "\(maxCount) uploads are waiting to be used; send them or wait for them to expire")
            }
            guard state.storedBytes + state.reservedBytes + bytes <= maxTotalBytes else {
                throw Refusal(
                    code: .rateLimited,
                    message: "uploads waiting to be used hold \(maxTotalBytes) bytes; send them or wait for them to expire")
            }
            state.reservedCount += 1
            state.reservedBytes += bytes
        }
        return Reservation(bytes: bytes, store: self)
    }

    /// Reserves a place for `data` and stores it (``reserve(bytes:)``, then ``store(_:reservation:)``).
    public func store(_ data: Data) throws(Refusal) -> Upload {
        try store(data, reservation: try reserve(bytes: data.count))
    }

    /// Stores `data` in the place `reservation` holds, after checking its size and type; the place is given
    /// back either way (the stored upload then counts in its stead).
    public func store(_ data: Data, reservation: Reservation) throws(Refusal) -> Upload {
        defer { reservation.release() }
        guard !data.isEmpty else { throw Refusal(code: .badRequest, message: "the upload is empty") }
        guard data.count <= min(maxBytes, reservation.bytes) else {
            throw Refusal(
                code: .tooLarge, message: "the upload is \(data.count) bytes; at most \(min(maxBytes, reservation.bytes)) are accepted")
        }
        guard let media = MediaSniffer.sniff(data) else {
            throw Refusal(
                code: .unsupportedMedia, message: "not an image (PNG, JPEG, WebP, HEIC) or audio clip (MP3, M4A, WAV, OGG, FLAC, WebM)")
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
        // The stored upload takes the reservation's place in one step: counted twice for a moment, it would turn
        // away a concurrent upload that fits (seen: 63 of 64 stored).
        let holdsPlace = reservation.take()
        state.withLock { state in
            state.uploads[id] = upload
            state.storedBytes += upload.size
            if holdsPlace {
                state.reservedCount -= 1
                state.reservedBytes -= reservation.bytes
            }
        }
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
            let removed = ids.compactMap { state.uploads.removeValue(forKey: $0) }
            state.storedBytes -= removed.reduce(0) { $0 + $1.size }
            return removed
        }
        for upload in ids { unlink(upload.path) }
    }

    /// Deletes uploads older than `lifetime`.
    public func sweep(now: ContinuousClock.Instant = .now) {
        let expired = state.withLock { state -> [Upload] in
            let old = state.uploads.values.filter { now - $0.storedAt >= lifetime }
            for upload in old { state.uploads[upload.uploadId] = nil }
            state.storedBytes -= old.reduce(0) { $0 + $1.size }
            return old
        }
        for upload in expired { unlink(upload.path) }
    }

    /// How many uploads are held.
    public var count: Int { state.withLock { $0.uploads.count } }
}
