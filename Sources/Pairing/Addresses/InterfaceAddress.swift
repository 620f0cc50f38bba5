#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One address of one network interface, as `getifaddrs(3)` lists it.
public struct InterfaceAddress: Sendable, Hashable {
    /// The address family.
    public enum Family: Sendable, Hashable {
        case ipv4, ipv6
    }

    /// The interface name, e.g. `eth0`, `tailscale0`.
    public var interface: String
    /// The address in text form, without a zone (`192.168.1.20`, `fd7a:115c:a1e0::1`).
    public var address: String
    /// IPv4 or IPv6.
    public var family: Family
    /// Whether the interface is up (`IFF_UP`).
    public var isUp: Bool
    /// Whether the interface is a loopback (`IFF_LOOPBACK`).
    public var isLoopback: Bool

    public init(interface: String, address: String, family: Family, isUp: Bool = true, isLoopback: Bool = false) {
        self.interface = interface
        self.address = address
        self.family = family
        self.isUp = isUp
        self.isLoopback = isLoopback
    }

    /// Every IPv4 and IPv6 address of every interface of this machine, in the kernel's order.
    /// - Throws: ``AddressDiscoveryError`` when `getifaddrs` fails.
    public static func system() throws(AddressDiscoveryError) -> [InterfaceAddress] {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0, let first = head else {
            throw .interfaces(String(cString: strerror(errno)))
        }
        defer { freeifaddrs(head) }
        var result: [InterfaceAddress] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(bitPattern: UInt32(entry.pointee.ifa_flags))
            guard let socketAddress = entry.pointee.ifa_addr,
                let (family, text) = Self.text(of: socketAddress)
            else { continue }
            result.append(
                InterfaceAddress(
                    interface: String(cString: entry.pointee.ifa_name),
                    address: text,
                    family: family,
                    isUp: flags & Int32(IFF_UP) != 0,
                    isLoopback: flags & Int32(IFF_LOOPBACK) != 0))
        }
        return result
    }

    private static func text(of socketAddress: UnsafeMutablePointer<sockaddr>) -> (Family, String)? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let ok = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                var address = pointer.pointee.sin_addr
                return inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count)) != nil
            }
            return ok ? (.ipv4, Self.string(buffer)) : nil
        case AF_INET6:
            let ok = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                var address = pointer.pointee.sin6_addr
                return inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil
            }
            return ok ? (.ipv6, Self.string(buffer)) : nil
        default:
            return nil
        }
    }

    /// The NUL-terminated text `inet_ntop` wrote.
    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
