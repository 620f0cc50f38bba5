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
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return result == 0
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
