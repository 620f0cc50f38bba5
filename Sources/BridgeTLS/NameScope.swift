import Foundation
import SwiftASN1
import X509

/// What the workstation's certificate authority may sign for: the DNS names and IP ranges of its critical
/// X.509 Name Constraints (RFC 5280 §4.2.1.10). A leaf naming anything else is rejected by browsers and
/// `openssl verify`, whoever holds the key.
///
/// The rule (``forWorkstation(hostName:names:)``, SECURITY.md says why):
/// - DNS: `localhost`, `HOST.local`, every MagicDNS name (`*.ts.net`), and the host name when it is
///   qualified enough not to name someone else's zone (3 or more labels, or ending in `.lan`, `.home.arpa`,
///   `.internal`). A DNS constraint also covers the names below it (`x.box.local`), so a single-label name
///   (`box` would permit every `*.box`) is never one.
/// - IP: `127.0.0.1` and `::1`; a Tailscale address exactly; a private IPv4 address (10/8, 172.16/12,
///   192.168/16) by its /24, so the leaf follows a DHCP change inside the LAN's subnet; another IPv4 address
///   exactly; a LAN IPv6 address (global or ULA) by its /64 (SLAAC and privacy addresses live there).
public struct NameScope: Sendable, Hashable, CustomStringConvertible {
    /// One permitted IP range: a network address and its prefix length.
    public struct IPRange: Sendable, Hashable, CustomStringConvertible {
        /// 4 or 16 bytes, the host bits zero.
        public let network: [UInt8]
        /// 0...32 or 0...128.
        public let prefixLength: Int

        /// The range of `bytes` (4 or 16) masked to `prefixLength`.
        public init(address bytes: [UInt8], prefixLength: Int) {
            self.prefixLength = prefixLength
            self.network = bytes.enumerated().map { index, byte in byte & Self.maskByte(index: index, prefixLength: prefixLength) }
        }

        /// The constraint's encoding: address then mask (8 or 32 bytes). Nil for any other length or a mask
        /// that is not contiguous.
        init?(constraint bytes: [UInt8]) {
            guard bytes.count == 8 || bytes.count == 32 else { return nil }
            let half = bytes.count / 2
            let mask = Array(bytes[half...])
            let ones = mask.reduce(0) { $0 + $1.nonzeroBitCount }
            let expected = (0..<half).map { Self.maskByte(index: $0, prefixLength: ones) }
            guard mask == expected else { return nil }
            self.init(address: Array(bytes[..<half]), prefixLength: ones)
        }

        /// Address then mask, as a name constraint holds it.
        var constraintBytes: [UInt8] {
            network + (0..<network.count).map { Self.maskByte(index: $0, prefixLength: prefixLength) }
        }

        /// Whether `bytes` (an address of the same family) is inside the range.
        public func contains(_ bytes: [UInt8]) -> Bool {
            guard bytes.count == network.count else { return false }
            return bytes.enumerated().allSatisfy { index, byte in
                byte & Self.maskByte(index: index, prefixLength: prefixLength) == network[index]
            }
        }

        static func maskByte(index: Int, prefixLength: Int) -> UInt8 {
            let bits = max(0, min(8, prefixLength - index * 8))
            return bits == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
        }

        public var description: String {
            "\(SubjectAlternativeName.ipAddressText(network) ?? "?")/\(prefixLength)"
        }
    }

    /// Permitted DNS names, lowercased; each also permits the names below it.
    public let dnsNames: [String]
    /// Permitted IP ranges.
    public let ipRanges: [IPRange]

    public init(dnsNames: [String], ipRanges: [IPRange]) {
        var seenNames = Set<String>()
        self.dnsNames = dnsNames.map { $0.lowercased() }.filter { seenNames.insert($0).inserted }
        var seenRanges = Set<IPRange>()
        self.ipRanges = ipRanges.filter { seenRanges.insert($0).inserted }
    }

    /// The scope for this workstation: its host name, and `names` (the addresses and host names a phone is
    /// offered: LAN, Tailscale, MagicDNS), by the rule in the type's documentation. Loopback is always in.
    public static func forWorkstation(hostName: String, names: [String]) -> NameScope {
        var dns = ["localhost"]
        var ranges = [
            IPRange(address: [127, 0, 0, 1], prefixLength: 32), IPRange(address: Array(repeating: 0, count: 15) + [1], prefixLength: 128),
        ]
        let host = hostName.lowercased()
        if let label = host.split(separator: ".").first, SubjectAlternativeName.isDNSName(String(label)) {
            dns.append("\(label).local")
        }
        if isQualifiedEnough(host) { dns.append(host) }
        for raw in names {
            let name = bare(raw)
            if let bytes = SubjectAlternativeName.ipAddressBytes(name) {
                if isOffered(bytes) { ranges.append(range(for: bytes)) }
            } else if SubjectAlternativeName.isDNSName(name), name.lowercased().hasSuffix(".ts.net") || isQualifiedEnough(name.lowercased())
            {
                dns.append(name.lowercased())
            }
        }
        return NameScope(dnsNames: dns, ipRanges: ranges)
    }

    /// Whether an address can be one a phone is offered: not link-local (its range would be every link's),
    /// multicast, unspecified or loopback (which is in already, exactly).
    static func isOffered(_ bytes: [UInt8]) -> Bool {
        if bytes.count == 4 {
            return !(bytes[0] == 0 || bytes[0] == 127 || bytes[0] >= 224 || (bytes[0] == 169 && bytes[1] == 254))
        }
        let linkLocal = bytes[0] == 0xFE && (bytes[1] & 0xC0) == 0x80
        return !(linkLocal || bytes[0] == 0xFF || bytes.dropLast().allSatisfy { $0 == 0 })
    }

    /// The range an address of this workstation is constrained to (see the type's documentation).
    static func range(for bytes: [UInt8]) -> IPRange {
        if bytes.count == 4 {
            let isPrivate = bytes[0] == 10 || (bytes[0] == 172 && (bytes[1] & 0xF0) == 16) || (bytes[0] == 192 && bytes[1] == 168)
            return IPRange(address: bytes, prefixLength: isPrivate ? 24 : 32)
        }
        let tailscale = bytes.starts(with: [0xFD, 0x7A, 0x11, 0x5C, 0xA1, 0xE0])
        return IPRange(address: bytes, prefixLength: tailscale ? 128 : 64)
    }

    /// A host name that names this machine rather than a zone others use: `.local`, 3+ labels, or a
    /// home-network suffix.
    static func isQualifiedEnough(_ name: String) -> Bool {
        guard SubjectAlternativeName.isDNSName(name), !name.hasPrefix("."), !name.hasSuffix(".") else { return false }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }) else { return false }
        if name.hasSuffix(".local") || name.hasSuffix(".lan") || name.hasSuffix(".home.arpa") || name.hasSuffix(".internal") {
            return true
        }
        return labels.count >= 3
    }

    /// `[v6]` without brackets, `%zone` dropped, surrounding spaces trimmed.
    static func bare(_ raw: String) -> String {
        var name = raw.trimmingCharacters(in: .whitespaces)
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        return name.split(separator: "%", maxSplits: 1).first.map(String.init) ?? name
    }

    /// Whether a certificate may name `name` under this scope (RFC 5280 matching: a DNS name equal to or below
    /// a permitted one; an address inside a permitted range).
    public func permits(_ raw: String) -> Bool {
        let name = Self.bare(raw)
        if let bytes = SubjectAlternativeName.ipAddressBytes(name) {
            return ipRanges.contains { $0.contains(bytes) }
        }
        let lowered = name.lowercased()
        guard SubjectAlternativeName.isDNSName(lowered) else { return false }
        return dnsNames.contains { lowered == $0 || lowered.hasSuffix("." + $0) }
    }

    /// The organization every leaf's subject starts with (`O=codex-bridge, CN=…`): the one directory name the CA
    /// may sign.
    public static let leafOrganization = DistinguishedName([
        RelativeDistinguishedName(.init(type: .RDNAttributeType.organizationName, utf8String: "codex-bridge"))
    ])

    /// The permitted subtrees that close the name forms other than DNS and IP (RFC 5280: once a form has a
    /// permitted subtree, every name of that form must be inside one). Directory names only below
    /// `O=codex-bridge` (the leaves' subjects); e-mail addresses and URIs only at the host `invalid`, a name
    /// reserved never to exist (RFC 6761), so none that names a real mailbox or site. (An excluded subtree cannot
    /// say "every name of this form": `openssl verify` reads an excluded `.` as names ending in a dot, and an
    /// empty excluded directory name excludes every leaf's subject.)
    public static let otherNameForms: [GeneralName] = [
        .directoryName(leafOrganization), .rfc822Name("invalid"), .uniformResourceIdentifier("invalid"),
    ]

    /// The X.509 extension: the DNS names and IP ranges, and ``otherNameForms``.
    public var nameConstraints: NameConstraints {
        var constraints = NameConstraints(
            permittedDNSDomains: dnsNames,
            permittedIPRanges: ipRanges.map { ASN1OctetString(contentBytes: ArraySlice($0.constraintBytes)) })
        constraints.permittedSubtrees += Self.otherNameForms
        return constraints
    }

    /// Whether `constraints` closes the other name forms (CAs made before issue 31 do not).
    public static func closesOtherNameForms(_ constraints: NameConstraints) -> Bool {
        otherNameForms.allSatisfy(constraints.permittedSubtrees.contains)
    }

    /// The scope a certificate's Name Constraints state; nil when it has none (or constrains other kinds than
    /// DNS, IP and ``otherNameForms``).
    public init?(_ constraints: NameConstraints) {
        var dns: [String] = []
        var ranges: [IPRange] = []
        for subtree in constraints.permittedSubtrees {
            switch subtree {
            case .dnsName(let name): dns.append(name)
            case .ipAddress(let bytes):
                guard let range = IPRange(constraint: Array(bytes.bytes)) else { return nil }
                ranges.append(range)
            case let other where Self.otherNameForms.contains(other): continue
            default: return nil
            }
        }
        guard constraints.excludedSubtrees.isEmpty, !dns.isEmpty, !ranges.isEmpty else { return nil }
        self.init(dnsNames: dns, ipRanges: ranges)
    }

    /// Names and ranges, as `tls ca` prints them.
    public var entries: [String] { dnsNames + ipRanges.map(\.description) }

    public var description: String { entries.joined(separator: ", ") }
}
