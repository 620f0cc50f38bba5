#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the bridge advertises over DNS-SD: one service instance of `type` on `port`, with TXT records.
///
/// TXT records are readable by anyone on the network: never put a secret (token, pairing code) in them.
public struct MDNSAdvertisement: Sendable, Hashable {
    /// The DNS-SD service type of a codex-bridge server.
    public static let serviceType = "_codexd._tcp"

    /// What is appended to `name` to form the instance name, so a bridge is recognisable in any browser.
    public static let instanceSuffix = " (codex-bridge)"

    /// A DNS label (and so an instance name) holds at most 63 bytes of UTF-8.
    static let maxInstanceNameBytes = 63

    /// The human part of the instance name (config, `--mdns-name`, or the host name).
    public var name: String
    /// The DNS-SD service type, `_codexd._tcp` unless testing.
    public var type: String
    /// The TCP port the server listens on.
    public var port: Int
    /// TXT record pairs, published as `key=value`. Never a secret.
    public var txt: [String: String]

    /// An advertisement with explicit TXT pairs.
    public init(name: String, type: String = MDNSAdvertisement.serviceType, port: Int, txt: [String: String]) {
        self.name = name
        self.type = type
        self.port = port
        self.txt = txt
    }

    /// The advertisement of a bridge: TXT `version`, `id`, `tls` and, with TLS, `fp`.
    ///
    /// - Parameters:
    ///   - name: the human part of the instance name; `MDNSAdvertisement.defaultName()` when there is no config.
    ///   - port: the port the server actually bound.
    ///   - serverID: the server's public, stable id (not its secret).
    ///   - protocolVersion: the wire protocol version (`version=`).
    ///   - tls: whether clients must use `wss://`.
    ///   - certificateFingerprint: the TLS certificate fingerprint clients pin (`fp=`), when TLS is on.
    public init(
        name: String,
        port: Int,
        serverID: String,
        protocolVersion: Int = 1,
        tls: Bool = false,
        certificateFingerprint: String? = nil
    ) {
        var txt = ["version": String(protocolVersion), "id": serverID, "tls": tls ? "1" : "0"]
        if let certificateFingerprint { txt["fp"] = certificateFingerprint }
        self.init(name: name, port: port, txt: txt)
    }

    /// The DNS-SD instance name: `<name> (codex-bridge)`, `name` shortened so the whole fits in 63 bytes.
    public var instanceName: String {
        Self.instanceName(for: name)
    }

    /// `<name> (codex-bridge)` for `name` (kept as is if it already ends with the suffix), at most 63 bytes.
    public static func instanceName(for name: String) -> String {
        var base = name.trimmingWhitespace()
        if base.isEmpty { base = defaultName() }
        if base.hasSuffix(instanceSuffix) { base.removeLast(instanceSuffix.count) }
        let budget = maxInstanceNameBytes - instanceSuffix.utf8.count
        while base.utf8.count > budget { base.removeLast() }
        return base.trimmingWhitespace() + instanceSuffix
    }

    /// The TXT entries as published, `key=value`, sorted by key.
    public var txtEntries: [String] {
        txt.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// Checks what avahi would refuse, so a mistake is reported once with a clear message.
    public func validate() throws(DiscoveryError) {
        guard (1...65535).contains(port) else {
            throw .invalidAdvertisement("port \(port) is not in 1...65535")
        }
        guard type.hasPrefix("_"), type.hasSuffix("._tcp") || type.hasSuffix("._udp") else {
            throw .invalidAdvertisement("service type \"\(type)\" is not of the form _name._tcp")
        }
        for (key, value) in txt {
            guard !key.isEmpty, !key.contains("="),
                key.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F })
            else {
                throw .invalidAdvertisement("TXT key \"\(key)\" must be printable ASCII without \"=\"")
            }
            guard key.utf8.count + 1 + value.utf8.count <= 255 else {
                throw .invalidAdvertisement("TXT entry \"\(key)\" is longer than 255 bytes")
            }
        }
    }

    /// The host name without its domain, or `codex-bridge` when it cannot be read.
    public static func defaultName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "codex-bridge" }
        let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let label = host.split(separator: ".", maxSplits: 1).first.map(String.init) ?? ""
        return label.isEmpty ? "codex-bridge" : label
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
