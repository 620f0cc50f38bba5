/// An address offered to a phone in the pairing URL.
public struct CandidateAddress: Sendable, Hashable, CustomStringConvertible {
    /// Where the address comes from; the order of the cases is the order of preference.
    public enum Kind: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// An IPv4 address on a LAN interface.
        case lanIPv4
        /// An IPv4 address on the tailnet (100.64.0.0/10 or `tailscale0`).
        case tailscaleIPv4
        /// The machine's MagicDNS name (`box.tail1234.ts.net`).
        case magicDNS
        /// A global or unique-local IPv6 address on a LAN interface.
        case lanIPv6
        /// An IPv6 address on the tailnet (fd7a:115c:a1e0::/48 or `tailscale0`).
        case tailscaleIPv6
        /// Given with `--advertise`; kept in the order given.
        case advertised

        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }

        public var description: String {
            switch self {
            case .lanIPv4: "LAN IPv4"
            case .tailscaleIPv4: "Tailscale IPv4"
            case .magicDNS: "Tailscale MagicDNS"
            case .lanIPv6: "LAN IPv6"
            case .tailscaleIPv6: "Tailscale IPv6"
            case .advertised: "advertised"
            }
        }
    }

    /// A bare IP address (IPv6 without brackets) or a host name.
    public var host: String
    /// Where it comes from.
    public var kind: Kind
    /// The interface it belongs to, when known.
    public var interface: String?
    /// Whether it reaches this machine over Tailscale.
    public var isTailscale: Bool

    public init(host: String, kind: Kind, interface: String? = nil, isTailscale: Bool = false) {
        self.host = host
        self.kind = kind
        self.interface = interface
        self.isTailscale = isTailscale
    }

    /// `host` as it goes in a URL authority: IPv6 in brackets.
    public var urlHost: String { host.contains(":") ? "[\(host)]" : host }

    /// E.g. `100.101.102.103 (Tailscale IPv4, tailscale0)`.
    public var description: String {
        "\(host) (\(kind)\(interface.map { ", \($0)" } ?? ""))"
    }
}
