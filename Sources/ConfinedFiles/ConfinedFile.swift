#if canImport(Glibc)
    import Glibc
#endif

/// A regular file opened once inside a ``ConfinedDirectory``: its size and mode come from the descriptor
/// (`fstat`), and everything read is read from that descriptor.
public final class ConfinedFile: Sendable {
    /// The open descriptor (read-only), closed when this object goes.
    public let descriptor: Int32
    /// The size when it was opened.
    public let size: Int
    /// `st_mode` when it was opened.
    public let mode: UInt32
    /// Where the descriptor points (`/proc/self/fd`), absolute; "" when unknown.
    public let path: String

    init(descriptor: Int32, size: Int, mode: UInt32, path: String) {
        self.descriptor = descriptor
        self.size = size
        self.mode = mode
        self.path = path
    }

    deinit { close(descriptor) }

    /// Whether any execute bit is set.
    public var isExecutable: Bool { (mode & 0o111) != 0 }

    /// Up to `count` bytes from `offset` (fewer at the end of the file).
    public func read(from offset: Int = 0, upTo count: Int) throws(ConfinedFileError) -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw ConfinedFileError(.io, "reading \(path.prefix(256)) failed (errno \(errno))")
            }
            if got == 0 { break }
            filled += got
        }
        bytes.removeSubrange(filled...)
        return bytes
    }
}
