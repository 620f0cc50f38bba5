import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads and writes small secret files atomically with mode 0600.
public enum SecretFile {
    /// Writes `contents` to `url` through a 0600 temporary file and a rename, so a reader never sees a
    /// partial file and the secret never exists with a looser mode.
    public static func write(_ contents: String, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError.io("cannot create \(temporary.path): \(String(cString: strerror(errno)))") }
        let bytes = Array(contents.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0 else {
            unlink(temporary.path)
            throw StoreError.io("cannot write \(temporary.path)")
        }
        guard rename(temporary.path, url.path) == 0 else {
            unlink(temporary.path)
            throw StoreError.io("cannot rename to \(url.path): \(String(cString: strerror(errno)))")
        }
    }

    /// Reads the file, trimmed of surrounding whitespace; nil when it does not exist.
    /// - Throws: ``StoreError/io(_:)``: one line naming the path and what is wrong (not a Foundation dump).
    public static func read(_ url: URL) throws -> String? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw StoreError.io(
                "cannot read \(url.path): \(access(url.path, R_OK) == 0 ? "read error" : "permission denied") (it should be yours, mode 0600)"
            )
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Makes sure a secret file is readable by its owner only. A file of this user that others can read is
    /// tightened to 0600 (the returned message says so, for the log); one that belongs to someone else is an
    /// error naming the fix, since this user cannot tighten it and must not trust it. Nil: nothing to do.
    public static func secure(_ url: URL) throws -> String? {
        var info = stat()
        guard stat(url.path, &info) == 0, info.st_mode & 0o077 != 0 else { return nil }
        let mode = String(info.st_mode & 0o777, radix: 8)
        guard info.st_uid == getuid() else {
            throw StoreError.io(
                "\(url.path) is readable by others (mode \(mode)) and belongs to uid \(info.st_uid), not you: "
                    + "remove it (its owner or root can) and let codex-bridge make a new one")
        }
        guard chmod(url.path, 0o600) == 0 else {
            throw StoreError.io(
                "cannot make \(url.path) private (mode \(mode)): \(String(cString: strerror(errno))); run: chmod 600 \(url.path)")
        }
        return "\(url.path) was readable by others (mode \(mode)); made it 0600"
    }
}

/// Failures of the on-disk store.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    case io(String)
    case corrupt(String)
    /// A request the store refuses (a limit, a bad value), said for a person.
    case invalid(String)

    public var description: String {
        switch self {
        case .io(let message): message
        case .corrupt(let message): message
        case .invalid(let message): message
        }
    }
}
