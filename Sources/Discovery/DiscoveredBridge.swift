/// A codex-bridge server found over mDNS, merged across the interfaces and address families it answered on.
public struct DiscoveredBridge: Codable, Sendable, Hashable {
    /// The DNS-SD instance name, e.g. `studio (codex-bridge)`.
    public var name: String
    /// The host name the service points at, e.g. `studio.local`.
    public var host: String
    /// Every address the service resolved to: IPv4 first, then IPv6 (link-local ones with `%interface`).
    public var addresses: [String]
    /// The server's port.
    public var port: Int
    /// All TXT pairs (a key without `=` maps to "").
    public var txt: [String: String]
    /// The wire protocol version from TXT `version`, if present and numeric.
    public var version: Int?
    /// The server id from TXT `id`.
    public var id: String?
    /// Whether the server wants `wss://` (TXT `tls=1`).
    public var tls: Bool

    /// A bridge with `version`, `id` and `tls` read from `txt`.
    public init(name: String, host: String, addresses: [String], port: Int, txt: [String: String]) {
        self.name = name
        self.host = host
        self.addresses = addresses
        self.port = port
        self.txt = txt
        self.version = txt["version"].flatMap { Int($0) }
        self.id = txt["id"]
        self.tls = txt["tls"] == "1"
    }
}

/// One resolved answer for a service instance: what one Avahi resolver reports for one interface and family.
struct ResolvedService: Sendable, Hashable {
    var name: String
    var type: String
    var domain: String
    var host: String
    var address: String
    var port: Int
    var txt: [String: String]
}

/// Merges resolved answers into one `DiscoveredBridge` per service instance (name, type, domain).
struct DiscoveredBridgeCollector {
    private struct Key: Hashable {
        var name: String
        var type: String
        var domain: String
    }

    private var bridges: [Key: DiscoveredBridge] = [:]

    mutating func add(_ service: ResolvedService) {
        let key = Key(name: service.name, type: service.type, domain: service.domain)
        var bridge =
            bridges[key]
            ?? DiscoveredBridge(
                name: service.name, host: service.host, addresses: [], port: service.port, txt: service.txt)
        if !service.address.isEmpty, !bridge.addresses.contains(service.address) {
            bridge.addresses.append(service.address)
            bridge.addresses.sort(by: Self.addressOrder)
        }
        bridges[key] = bridge
    }

    /// The bridges found, by name.
    var bridgesByName: [DiscoveredBridge] {
        bridges.values.sorted { ($0.name, $0.host) < ($1.name, $1.host) }
    }

    /// IPv4 before IPv6, loopback last within each family, then textual order.
    static func addressOrder(_ a: String, _ b: String) -> Bool {
        func rank(_ address: String) -> Int {
            let v6 = address.contains(":")
            let loopback = address.hasPrefix("127.") || address == "::1"
            return (v6 ? 2 : 0) + (loopback ? 1 : 0)
        }
        return (rank(a), a) < (rank(b), b)
    }
}
