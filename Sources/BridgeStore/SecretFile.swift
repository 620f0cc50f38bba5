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
    public static func read(_ url: URL) throws -> String? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data = try Data(contentsOf: url)
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Failures of the on-disk store.
public enum StoreError: Error, CustomStringConvertible, Sendable {
    case io(String)
    case corrupt(String)

    public var description: String {
        switch self {
        case .io(let message): message
        case .corrupt(let message): message
        }
    }
}
