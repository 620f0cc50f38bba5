import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.0 GET to `127.0.0.1` with a deadline: enough for `status` to ask a running bridge for
/// `/healthz` and `/metrics`, without an HTTP client library.
public enum LoopbackHTTP {
    /// A response: the status code and the body.
    public struct Response: Sendable, Hashable {
        public var status: Int
        public var body: String
    }

    /// GETs `path` from `host:port` (an IP address; `127.0.0.1` by default); nil when nothing answers within
    /// `timeout`. The bearer token, when given, goes only into the `Authorization` header.
    public static func get(host: String = "127.0.0.1", port: Int, path: String, bearer: String? = nil, timeout: Duration = .seconds(2))
        -> Response?
    {
        var storage = sockaddr_storage()
        var length: socklen_t = 0
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, bare, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            withUnsafeBytes(of: v4) { bytes in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else if inet_pton(AF_INET6, bare, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
            withUnsafeBytes(of: v6) { bytes in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            return nil
        }
        let fd = socket(Int32(storage.ss_family), Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let deadline = ContinuousClock.now + timeout
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let connected = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        if connected != 0 {
            guard errno == EINPROGRESS, wait(fd, for: Int16(POLLOUT), until: deadline) else { return nil }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 else { return nil }
        }
        var bytes = Array(request(port: port, path: path, bearer: bearer).utf8)
        while !bytes.isEmpty {
            guard wait(fd, for: Int16(POLLOUT), until: deadline) else { return nil }
            let sent = send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL))
            if sent < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return nil
            }
            bytes.removeFirst(sent)
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            guard wait(fd, for: Int16(POLLIN), until: deadline) else { return nil }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { break }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return nil
            }
            received += buffer[0..<count]
            if received.count > 8 << 20 { return nil }
        }
        return parse(received)
    }

    /// The request `get` sends (also over TLS by `TLSLoopbackHTTP`).
    package static func request(port: Int, path: String, bearer: String?) -> String {
        var request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let bearer { request += "Authorization: Bearer \(bearer)\r\n" }
        return request + "\r\n"
    }

    /// The status and body of a whole HTTP/1.x response; nil when it is not one.
    package static func parse(_ bytes: [UInt8]) -> Response? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headerEnd = text.range(of: "\r\n\r\n") else { return nil }
        let statusLine = text[..<headerEnd.lowerBound].split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else { return nil }
        return Response(status: status, body: String(text[headerEnd.upperBound...]))
    }

    private static func wait(_ fd: Int32, for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0, errno == EINTR { continue }
            if ready == 0 { continue }
            return false
        }
    }
}

/// Whether a TCP port can be bound on `127.0.0.1` right now.
public enum PortProbe {
    /// True when `127.0.0.1:port` can be bound (it is free); false when it is in use or cannot be bound.
    public static func isFree(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return bound == 0
    }
}
