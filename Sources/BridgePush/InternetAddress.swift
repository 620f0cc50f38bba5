#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 address as bytes, and whether it is a public unicast address (one a push service may have).
public struct InternetAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 or 16 bytes, network order.
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A literal address (`192.0.2.1`, `2001:db8::1`, with or without brackets); nil for anything else.
    public init?(literal: String) {
        let bare = literal.hasPrefix("[") && literal.hasSuffix("]") ? String(literal.dropFirst().dropLast()) : literal
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, bare, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// The address as text (`inet_ntop`).
    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        guard inet_ntop(family, &copy, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether this is a globally routable unicast address: not loopback, private, shared (CGNAT), link-local,
    /// unique-local, multicast, unspecified, broadcast, documentation, benchmarking or reserved, and not an
    /// IPv4-mapped, -compatible, NAT64 or 6to4 form of one of those.
    public var isPublicUnicast: Bool {
        bytes.count == 4 ? Self.isPublicV4(bytes) : isPublicV6
    }

    private var isPublicV6: Bool {
        let b = bytes
        // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, and :: / ::1), 64:ff9b::a.b.c.d (NAT64): the IPv4 inside.
        if b[0..<10].allSatisfy({ $0 == 0 }), (b[10] == 0xFF && b[11] == 0xFF) || (b[10] == 0 && b[11] == 0) {
            return Self.isPublicV4(Array(b[12..<16]))
        }
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xFF, b[3] == 0x9B, b[4..<12].allSatisfy({ $0 == 0 }) {
            return Self.isPublicV4(Array(b[12..<16]))
        }
        // 2002::/16 (6to4) carries an IPv4 address in bytes 2–5.
        if b[0] == 0x20, b[1] == 0x02 { return Self.isPublicV4(Array(b[2..<6])) }
        // Only 2000::/3 is global unicast.
        guard b[0] & 0xE0 == 0x20 else { return false }
        // 2001:db8::/32 documentation, 2001::/23 IETF protocol assignments (Teredo, benchmarking, ORCHID…).
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0D, b[3] == 0xB8 { return false }
        if b[0] == 0x20, b[1] == 0x01, b[2] < 0x02 { return false }
        // 3fff::/20 documentation (RFC 9637).
        if b[0] == 0x3F, b[1] == 0xFF, b[2] & 0xF0 == 0 { return false }
        return true
    }

    private static func isPublicV4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1], b[2]) {
        case (0, _, _), (10, _, _), (127, _, _): return false  // this network, private, loopback
        case (100, 64...127, _): return false  // shared address space (CGNAT)
        case (169, 254, _): return false  // link-local (cloud metadata services live here)
        case (172, 16...31, _): return false  // private
        case (192, 0, 0), (192, 0, 2), (192, 88, 99): return false  // IETF assignments, documentation, 6to4 relay
        case (192, 168, _): return false  // private
        case (198, 18...19, _): return false  // benchmarking
        case (198, 51, 100), (203, 0, 113): return false  // documentation
        case (224...255, _, _): return false  // multicast, reserved, broadcast
        default: return true
        }
    }

    /// Every address `host` resolves to (`getaddrinfo`, TCP); blocks, so call it off any actor or event loop.
    /// Empty when it does not resolve.
    public static func resolve(_ host: String) -> [InternetAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var result: [InternetAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    let bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                    }
                    if let parsed = InternetAddress(bytes: bytes), !result.contains(parsed) { result.append(parsed) }
                case AF_INET6:
                    let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                    }
                    if let parsed = InternetAddress(bytes: bytes), !result.contains(parsed) { result.append(parsed) }
                default: break
                }
            }
            entry = current.pointee.ai_next
        }
        return result
    }
}
