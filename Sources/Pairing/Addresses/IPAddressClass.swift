#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What an IP address is: which ones to offer a phone, and whether plaintext there is readable by the LAN.
public enum IPAddressClass: Sendable, Hashable {
    /// Worth offering: IPv4 other than the ranges below, IPv6 global unicast (2000::/3) or ULA (fc00::/7).
    case usable
    /// 127/8, ::1.
    case loopback
    /// 169.254/16, fe80::/10: only valid on one link, useless in a URL.
    case linkLocal
    /// Anything else: unspecified, multicast, IPv4-mapped, reserved.
    case other

    /// Classifies a textual address (`[v6]` brackets allowed); `nil` when it is not an IP address.
    public static func of(_ text: String) -> (IPAddressClass, isTailscale: Bool)? {
        if text.hasPrefix("["), text.hasSuffix("]") { return of(String(text.dropFirst().dropLast())) }
        if let v4 = ipv4Bytes(text) {
            let tailscale = v4[0] == 100 && (v4[1] & 0xC0) == 64  // 100.64.0.0/10 (CGNAT, Tailscale's range)
            switch (v4[0], v4[1]) {
            case (127, _): return (.loopback, false)
            case (169, 254): return (.linkLocal, false)
            case (0, _), (224...255, _): return (.other, false)
            default: return (.usable, tailscale)
            }
        }
        if let v6 = ipv6Bytes(text) {
            let tailscale = v6.starts(with: [0xFD, 0x7A, 0x11, 0x5C, 0xA1, 0xE0])  // fd7a:115c:a1e0::/48
            if v6.dropLast().allSatisfy({ $0 == 0 }) { return (v6[15] == 1 ? .loopback : .other, false) }
            if v6[0] == 0xFE && (v6[1] & 0xC0) == 0x80 { return (.linkLocal, false) }
            if (v6[0] & 0xE0) == 0x20 || (v6[0] & 0xFE) == 0xFC { return (.usable, tailscale) }
            return (.other, false)
        }
        return nil
    }

    static func isIPv6(_ text: String) -> Bool { ipv6Bytes(text) != nil }

    static func ipv4Bytes(_ text: String) -> [UInt8]? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    static func ipv6Bytes(_ text: String) -> [UInt8]? {
        let bare = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? text
        var address = in6_addr()
        guard inet_pton(AF_INET6, bare, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }
}
