import BridgeStore
import Foundation

/// Whether `serve` can bind its address, checked before anything else is printed, so that a port in use is
/// one clear line instead of a bind error after the startup logs.
enum PortProbe {
    /// nil when `host:port` can be bound now; else the reason (`EADDRINUSE` or another bind error).
    static func bindError(host: String, port: Int) -> Int32? {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard getaddrinfo(bare.isEmpty ? nil : bare, String(port), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        return bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 ? nil : errno
    }

    /// The one-line error for a port in use: who holds it when that is this state directory's server.
    static func inUseMessage(host: String, port: Int, paths: StatePaths) -> String {
        let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var holder = "another program"
        if let record = ServerRecord.readRunning(paths: paths), record.port == port {
            holder = "codex-bridge pid \(record.pid), serving this state directory"
        }
        return "\(shown) is already in use (by \(holder)); stop it or choose --listen HOST:PORT"
    }
}
