/// The checks on a path given relative to a confined directory, before any system call sees it.
enum ConfinedPath {
    /// Longest relative path accepted, in bytes (PATH_MAX).
    static let maxBytes = 4096

    /// `path` with `.` components and repeated slashes removed; `..` is kept (the kernel's `RESOLVE_BENEATH`
    /// refuses any that would leave the directory; the fallback refuses every `..`). Empty means the directory
    /// itself.
    static func normalized(_ path: String) throws(ConfinedFileError) -> [String] {
        guard path.utf8.count <= maxBytes else { throw ConfinedFileError(.invalidPath, "the path is longer than \(maxBytes) bytes") }
        guard !path.utf8.contains(0) else { throw ConfinedFileError(.invalidPath, "the path holds a NUL byte") }
        guard !path.hasPrefix("/") else { throw ConfinedFileError(.invalidPath, "the path must be relative to the directory") }
        return path.split(separator: "/", omittingEmptySubsequences: true).map(String.init).filter { $0 != "." }
    }
}
