import Foundation

/// One WebSocket address of a bridge: `ws://HOST:PORT/` or `wss://HOST:PORT/`.
///
/// ``init(parsing:)`` accepts what people type or paste: `host`, `host:port`, `[v6]:port`, a bare IPv6
/// address, `ws://…`, `wss://…`, and `http://…` / `https://…` (read as `ws://` / `wss://`).
public struct BridgeEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The bridge's default port.
    public static let defaultPort = 9099

    /// `ws` or `wss`.
    public var isTLS: Bool
    /// A host name, an IPv4 address, or a bare IPv6 address (no brackets; may carry a `%zone`).
    public var host: String
    /// The TCP port.
    public var port: Int
    /// The request path, starting with `/`.
    public var path: String

    /// An endpoint from its parts; `host` may be a bracketed IPv6 address.
    public init(host: String, port: Int = BridgeEndpoint.defaultPort, tls: Bool = false, path: String = "/") {
        self.isTLS = tls
        self.host = Self.unbracketed(host)
        self.port = port
        self.path = path.hasPrefix("/") ? path : "/" + path
    }

    /// Normalizes a typed or pasted address.
    ///
    /// Without a scheme, or with `ws`/`wss` and no port, the port is 9099 (the bridge's default); `http` and
    /// `https` URLs without a port get 80 and 443, as a reverse proxy would serve them.
    /// - Throws: ``BridgeClientError`` with code `invalidAddress`.
    public init(parsing text: String) throws(BridgeClientError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw .invalidAddress(text, "empty") }
        var rest = Substring(trimmed)
        var tls = false
        var schemePort = Self.defaultPort
        if let range = rest.range(of: "://") {
            switch rest[..<range.lowerBound].lowercased() {
            case "ws": tls = false
            case "wss": tls = true
            case "http": (tls, schemePort) = (false, 80)
            case "https": (tls, schemePort) = (true, 443)
            case let other: throw .invalidAddress(text, "unsupported scheme \(other)://")
            }
            rest = rest[range.upperBound...]
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if let hash = path.firstIndex(of: "#") { path = String(path[..<hash]) }
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }

        let host: String
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidAddress(text, "unclosed [") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidAddress(text, "unexpected text after ]") }
                portText = after.dropFirst()
            }
        } else if authority.filter({ $0 == ":" }).count > 1 {
            host = String(authority)  // a bare IPv6 address: no port can be given without brackets
        } else if let colon = authority.firstIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { throw .invalidAddress(text, "no host") }
        var port = schemePort
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw .invalidAddress(text, "port must be 1 to 65535")
            }
            port = value
        }
        self.init(host: host, port: port, tls: tls, path: path)
    }

    /// `ws` or `wss`.
    public var scheme: String { isTLS ? "wss" : "ws" }

    /// The host as it appears in a URL: IPv6 in brackets, a `%zone` escaped as `%25`.
    public var urlHost: String {
        guard host.contains(":") else { return host }
        return "[" + host.replacingOccurrences(of: "%", with: "%25") + "]"
    }

    /// `ws://host:port/path`.
    public var url: String { "\(scheme)://\(urlHost):\(port)\(path)" }

    public var description: String { url }

    /// Whether `host` is an IPv4 or IPv6 literal (TLS cannot send those as SNI).
    public var hostIsIPAddress: Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil }
    }

    private static func unbracketed(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}
