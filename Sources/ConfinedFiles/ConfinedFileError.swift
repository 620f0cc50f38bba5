#if canImport(Glibc)
    import Glibc
#endif

/// Why something inside a confined directory could not be opened or read.
public struct ConfinedFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for callers that map it onto their own error codes.
    public enum Code: String, Sendable, Hashable {
        /// Nothing of that name (or a component of the path is not a directory).
        case notFound
        /// The path, or a symbolic link on it, leads out of the directory.
        case outside
        /// It exists but is not a regular file (a FIFO, a socket, a device, a directory where a file was asked).
        case notRegularFile
        /// A directory was asked and this is not one.
        case notDirectory
        /// The permissions forbid it.
        case denied
        /// The path itself is unusable (empty, too long, a NUL byte, absolute).
        case invalidPath
        /// Any other failure of the system call.
        case io
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The error for a failed open of `path` with `errno` `number`.
    static func opening(_ path: String, errno number: Int32) -> ConfinedFileError {
        let shown = String(path.prefix(256))
        switch number {
        case ENOENT: return ConfinedFileError(.notFound, "\(shown) does not exist")
        case ENOTDIR: return ConfinedFileError(.notFound, "\(shown) does not exist (a component is not a directory)")
        case EXDEV, ELOOP: return ConfinedFileError(.outside, "\(shown) leads outside the directory (a symbolic link or '..')")
        case EACCES, EPERM: return ConfinedFileError(.denied, "\(shown) cannot be read: permission denied")
        case ENXIO, ENODEV, EISDIR: return ConfinedFileError(.notRegularFile, "\(shown) is not a regular file")
        case ENAMETOOLONG: return ConfinedFileError(.invalidPath, "\(shown) is too long")
        default: return ConfinedFileError(.io, "\(shown) cannot be opened (errno \(number))")
        }
    }
}
