import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether a TCP address can be bound right now: `serve` checks its address before anything else is printed
/// (a port in use is one clear line, not a bind error after the startup logs), and `doctor` checks the port.
public enum PortProbe {
    /// nil when `host:port` can be bound now; else the reason (`EADDRINUSE` or another bind error).
    public static func bindError(host: String, port: Int) -> Int32? {
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

    /// True when `127.0.0.1:port` can be bound (it is free).
    public static func isFree(port: Int) -> Bool { bindError(host: "127.0.0.1", port: port) == nil }
}
