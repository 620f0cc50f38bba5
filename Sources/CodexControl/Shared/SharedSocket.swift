import CLinuxShims
import Foundation

/// Where the shared `codex app-server` listens and whether something answers there.
public enum SharedSocket {
    /// The stable per-user socket: the one `codex app-server daemon start` listens on,
    /// `$CODEX_HOME/app-server-control/app-server-control.sock` (`CODEX_HOME` defaults to `~/.codex`). Joining
    /// it finds a managed daemon the user already runs; a bridge that starts its own app-server listens there too.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let codexHome =
            environment["CODEX_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.codex")
        return codexHome + "/app-server-control/app-server-control.sock"
    }

    /// The command that attaches a terminal's Codex TUI to the shared app-server at `path`.
    public static func attachCommand(path: String) -> String {
        "codex --remote unix://\(path)"
    }

    /// Longest unix socket path (`sun_path` holds 108 bytes including the terminating NUL).
    public static let maxPathBytes = 107

    /// Whether a process accepts connections on the unix socket at `path` (a plain `connect`; nothing is sent).
    public static func answers(at path: String) -> Bool {
        guard path.utf8.count <= maxPathBytes else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return connect(fd, to: path) == 0
    }

    /// `connect(2)` of the unix socket `fd` to `path` (at most ``maxPathBytes``).
    static func connect(_ fd: Int32, to path: String) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.prefix(maxPathBytes).enumerated() { buffer[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Connects to the shared app-server at `path`, having checked that it is this user's: the socket's
    /// directory is a directory owned by this user and writable by nobody else (so nobody else could have put
    /// the socket there), the socket is owned by this user, and the process that accepted the connection runs
    /// as this user (`SO_PEERCRED`). Codex makes `path` a symbolic link to a socket of its own
    /// (`/tmp/codex-daemon-UID/…`): the link's directory and the socket's are both checked, and the socket is
    /// connected to by its resolved path. Returns the connected descriptor.
    /// - Throws: ``CodexError/unavailable(_:)`` naming the check that failed.
    public static func connectOwned(at path: String) throws -> Int32 {
        guard path.hasPrefix("/"), path.utf8.count <= maxPathBytes else {
            throw CodexError.unavailable("the shared socket path must be absolute and at most \(maxPathBytes) bytes: \(path)")
        }
        try checkPrivateDirectory((path as NSString).deletingLastPathComponent)
        guard
            let resolved = realpath(path, nil).map({ pointer in
                defer { free(pointer) }
                return String(cString: pointer)
            })
        else {
            throw CodexError.unavailable("no shared codex app-server socket at \(path)")
        }
        let target = resolved.utf8.count <= maxPathBytes ? resolved : path
        if resolved != path { try checkPrivateDirectory((resolved as NSString).deletingLastPathComponent) }
        var info = stat()
        guard stat(target, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK, info.st_uid == getuid() else {
            throw CodexError.unavailable("\(path) is not a socket owned by you")
        }
        let path = target
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw CodexError.unavailable("cannot make a socket (errno \(errno))") }
        guard connect(fd, to: path) == 0 else {
            let number = errno
            close(fd)
            throw CodexError.unavailable("no shared codex app-server answers at \(path) (errno \(number))")
        }
        var peer: uid_t = 0
        guard cb_peer_uid(fd, &peer) == 0, peer == getuid() else {
            close(fd)
            throw CodexError.unavailable("the process listening at \(path) does not run as you (uid \(peer)); refusing to use it")
        }
        return fd
    }

    /// A directory owned by this user that nobody else may write to (else someone else could replace what is in it).
    static func checkPrivateDirectory(_ directory: String) throws {
        var info = stat()
        guard stat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CodexError.unavailable("the shared socket's directory \(directory) is not a directory")
        }
        guard info.st_uid == getuid(), (info.st_mode & 0o022) == 0 else {
            throw CodexError.unavailable(
                "the shared socket's directory \(directory) must be yours and not writable by group or others (chmod 700 \(directory))")
        }
    }

    /// Removes a socket file nobody listens on any more (a crashed app-server leaves it behind and a new one
    /// cannot bind). Only a socket is removed, never another kind of file. True when `path` is free now.
    @discardableResult
    public static func removeStale(at path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return true }
        guard (info.st_mode & S_IFMT) == S_IFSOCK, !answers(at: path) else { return false }
        return unlink(path) == 0
    }
}
