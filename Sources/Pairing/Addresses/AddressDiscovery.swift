import Foundation
import Logging

/// Chooses the addresses a pairing URL offers, and the addresses `serve --listen tailscale` binds.
///
/// Offered: every address of an up, non-loopback interface that is IPv4 (not link-local 169.254/16) or IPv6
/// global/ULA (not link-local fe80::/10), except on container and VM bridges (`docker*`, `veth*`, `br-*`,
/// `virbr*`, `lxcbr*`, `lxdbr*`, `cni*`, `podman*`: a phone cannot reach those). Tailscale addresses are those
/// on `tailscale0` or in 100.64.0.0/10 or fd7a:115c:a1e0::/48. Order: LAN IPv4, Tailscale IPv4, the MagicDNS
/// name, LAN IPv6, Tailscale IPv6; interface order within each group.
public struct AddressDiscovery: Sendable {
    /// Interface name prefixes that are never offered.
    public static let skippedInterfacePrefixes = ["docker", "veth", "br-", "virbr", "lxcbr", "lxdbr", "cni", "podman"]
    /// The Tailscale interface on Linux.
    public static let tailscaleInterface = "tailscale0"

    private let interfaces: @Sendable () throws -> [InterfaceAddress]
    private let tailscale: any TailscaleStatusProvider
    private let logger: Logger

    /// - Parameters:
    ///   - interfaces: lists interface addresses; tests pass a fixed list.
    ///   - tailscale: answers the MagicDNS name; tests pass a ``TailscaleCLI`` with a fake `tailscale` on PATH.
    public init(
        interfaces: @escaping @Sendable () throws -> [InterfaceAddress] = { try InterfaceAddress.system() },
        tailscale: any TailscaleStatusProvider,
        logger: Logger
    ) {
        self.interfaces = interfaces
        self.tailscale = tailscale
        self.logger = logger
    }

    /// The real interfaces and the `tailscale` CLI on the process's PATH.
    public init(logger: Logger) {
        self.init(tailscale: TailscaleCLI(logger: logger), logger: logger)
    }

    /// The addresses to offer, best first. A non-empty `advertise` (`--advertise HOST ...`) replaces discovery
    /// entirely and keeps its order.
    /// - Throws: ``AddressDiscoveryError`` when interfaces cannot be listed or an advertised host is unusable.
    public func candidates(advertise: [String] = []) async throws -> [CandidateAddress] {
        if !advertise.isEmpty { return try Self.advertised(advertise) }
        let list = try interfaces()
        let magicDNS = await tailscale.magicDNSName()
        let result = Self.select(list, magicDNSName: magicDNS)
        logger.debug("pairing addresses", metadata: ["bridge.addresses": "\(result.map(\.host))"])
        return result
    }

    /// The Tailscale addresses to bind for `serve --listen tailscale`, IPv4 first.
    /// - Throws: ``AddressDiscoveryError/noTailscaleInterface`` when there is none.
    public func tailscaleBindAddresses() throws -> [String] {
        let hosts = Self.select(try interfaces(), magicDNSName: nil).filter(\.isTailscale).map(\.host)
        guard !hosts.isEmpty else { throw AddressDiscoveryError.noTailscaleInterface }
        return hosts
    }

    /// The pure selection rule (see the type's documentation).
    public static func select(_ interfaces: [InterfaceAddress], magicDNSName: String?) -> [CandidateAddress] {
        var seen = Set<String>()
        var result: [CandidateAddress] = []
        for entry in interfaces where entry.isUp && !entry.isLoopback {
            guard !skippedInterfacePrefixes.contains(where: { entry.interface.hasPrefix($0) }),
                let (kind, inTailscaleRange) = IPAddressClass.of(entry.address), kind == .usable
            else { continue }
            let host = entry.address.split(separator: "%", maxSplits: 1).first.map(String.init) ?? entry.address
            guard seen.insert(host).inserted else { continue }
            let isTailscale = inTailscaleRange || entry.interface == tailscaleInterface
            let kindOfCandidate: CandidateAddress.Kind =
                switch (entry.family, isTailscale) {
                case (.ipv4, false): .lanIPv4
                case (.ipv4, true): .tailscaleIPv4
                case (.ipv6, false): .lanIPv6
                case (.ipv6, true): .tailscaleIPv6
                }
            result.append(CandidateAddress(host: host, kind: kindOfCandidate, interface: entry.interface, isTailscale: isTailscale))
        }
        if let magicDNSName, !magicDNSName.isEmpty, seen.insert(magicDNSName).inserted {
            result.append(CandidateAddress(host: magicDNSName, kind: .magicDNS, interface: nil, isTailscale: true))
        }
        // A stable sort: interface order is kept within a kind.
        return result.enumerated().sorted { ($0.element.kind, $0.offset) < ($1.element.kind, $1.offset) }.map(\.element)
    }

    /// `--advertise` values as candidates, in the order given; brackets around IPv6 are dropped.
    static func advertised(_ hosts: [String]) throws -> [CandidateAddress] {
        var seen = Set<String>()
        var result: [CandidateAddress] = []
        for raw in hosts {
            var host = raw.trimmingCharacters(in: .whitespaces)
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._:")
            guard !host.isEmpty, host.allSatisfy(allowed.contains) else {
                throw AddressDiscoveryError.invalidAdvertisedHost(raw)
            }
            guard seen.insert(host).inserted else { continue }
            let isTailscale = IPAddressClass.of(host)?.isTailscale ?? host.hasSuffix(".ts.net")
            result.append(CandidateAddress(host: host, kind: .advertised, interface: nil, isTailscale: isTailscale))
        }
        return result
    }
}
