import Foundation

/// The pairing URL a bridge shows as a QR code and as text:
///
///     codex-bridge://pair?v=1&host=192.168.1.20&port=8765&code=7K3QZ9M2XA
///         &addrs=192.168.1.20,100.101.102.103,box.tail1234.ts.net,fd7a:115c:a1e0::1
///         &id=SERVER-ID&name=My%20Workstation[&fp=SHA256-FINGERPRINT]
///
/// - `v`: the format version (1).
/// - `host`: the address the client should try first; `addrs`: every candidate, best first, comma-separated
///   (a client tries them in order). Addresses are bare: an IPv6 address has no brackets (a client adds them
///   when it builds `ws://[…]:port/`).
/// - `code`: the one-time pairing code, sent as `hello.token`; or instead `token`: a pre-shared token
///   (`pair --static`) used as is.
/// - `id`, `name`: the server's stable id and human name; `fp`: the TLS certificate fingerprint, when TLS is on.
///
/// Values are percent-encoded (UTF-8) except RFC 3986 unreserved characters and `:` `@` `/`; `,` inside an
/// address is encoded so the list splits unambiguously. Parsers ignore unknown parameters.
public struct PairingURL: Sendable, Hashable {
    /// The URL scheme.
    public static let scheme = "codex-bridge"
    /// The format version this type writes.
    public static let currentVersion = 1

    /// What the client presents in `hello.token`.
    public enum Credential: Sendable, Hashable {
        /// A one-time pairing code, exchanged for a device token (`code=`).
        case pairingCode(String)
        /// A pre-shared token used as is (`token=`, `pair --static`).
        case staticToken(String)

        /// The string for `hello.token`.
        public var token: String {
            switch self {
            case .pairingCode(let value), .staticToken(let value): value
            }
        }
    }

    /// The format version.
    public var version: Int
    /// The best address (host name, IPv4 or bare IPv6).
    public var host: String
    /// The WebSocket port.
    public var port: Int
    /// The secret to present.
    public var credential: Credential
    /// Every candidate address, best first (includes `host`).
    public var addresses: [String]
    /// The server's stable id.
    public var serverId: String
    /// The server's human name.
    public var serverName: String
    /// The TLS certificate fingerprint, when the server uses TLS: the workstation's certificate authority's
    /// (`serve --tls`) or the served certificate's (`--tls-cert`).
    public var fingerprint: String?
    /// Whether a phone may have to trust the workstation's own CA first (`serve --tls`): the bridge then shows
    /// the plain-HTTP "Trust this workstation" page (``trustString``, which carries no secret) before the
    /// `https://` pairing URL (``webString``). No credential ever goes in an `http://` URL of a TLS bridge.
    public var trustFirst: Bool

    public init(
        version: Int = PairingURL.currentVersion, host: String, port: Int, credential: Credential,
        addresses: [String], serverId: String, serverName: String, fingerprint: String? = nil, trustFirst: Bool = false
    ) {
        self.trustFirst = trustFirst
        self.version = version
        self.host = host
        self.port = port
        self.credential = credential
        self.addresses = addresses
        self.serverId = serverId
        self.serverName = serverName
        self.fingerprint = fingerprint
    }

    /// The URL text.
    public var string: String {
        var items: [(String, String)] = [("v", String(version)), ("host", Self.encode(host)), ("port", String(port))]
        switch credential {
        case .pairingCode(let code): items.append(("code", Self.encode(code)))
        case .staticToken(let token): items.append(("token", Self.encode(token)))
        }
        items.append(("addrs", addresses.map(Self.encode).joined(separator: ",")))
        items.append(("id", Self.encode(serverId)))
        items.append(("name", Self.encode(serverName)))
        if let fingerprint { items.append(("fp", Self.encode(fingerprint))) }
        return "\(Self.scheme)://pair?" + items.map { "\($0)=\($1)" }.joined(separator: "&")
    }

    /// The web form, which a phone's camera opens in the browser (the bridge serves the web app on the same
    /// port): `http(s)://HOST:PORT/#pair=v1&code=…&id=…&name=…[&fp=…]`. The pairing data is in the fragment,
    /// which browsers never send to a server, so it appears in no request line or log. `https` whenever the
    /// bridge serves TLS (a fingerprint is known): over plain HTTP the page that reads the fragment comes from
    /// whoever answers for the address, so a TLS bridge's credential never goes in an `http://` URL.
    public var webString: String {
        var items: [(String, String)] = [("pair", "v\(version)")]
        switch credential {
        case .pairingCode(let code): items.append(("code", Self.encode(code)))
        case .staticToken(let token): items.append(("token", Self.encode(token)))
        }
        items.append(("id", Self.encode(serverId)))
        items.append(("name", Self.encode(serverName)))
        if let fingerprint { items.append(("fp", Self.encode(fingerprint))) }
        let secure = fingerprint != nil
        return "\(secure ? "https" : "http")://\(authority)/#" + items.map { "\($0)=\($1)" }.joined(separator: "&")
    }

    /// The shortest web form, for a QR code that must stay small (`serve`'s on an 80×24 terminal):
    /// `http(s)://HOST:PORT/#pair=v1&code=…` (or `token=…`), without `id`, `name` and `fp`. The page reads the
    /// bridge's id and name from `helloAck`, and the browser checks the certificate itself; a native app wants
    /// ``string`` (`pair --app`) or ``webString``, which carry them.
    public var compactWebString: String {
        let credential =
            switch credential {
            case .pairingCode(let code): "code=\(Self.encode(code))"
            case .staticToken(let token): "token=\(Self.encode(token))"
            }
        return "\(fingerprint != nil ? "https" : "http")://\(authority)/#pair=v\(version)&\(credential)"
    }

    /// With ``trustFirst``: the trust page, `http://HOST:PORT/`, with no fragment and no secret (a phone that does
    /// not trust the workstation's CA yet opens it first; it leads to the `https://` app, which pairs with
    /// ``webString`` or the code typed by hand). nil otherwise.
    public var trustString: String? {
        guard trustFirst, fingerprint != nil else { return nil }
        return "http://\(authority)/"
    }

    /// `HOST:PORT`, an IPv6 host in brackets.
    private var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Parses a pairing URL: `codex-bridge://pair?…` or the web form (``webString``).
    /// - Throws: ``PairingURLError`` when it is not one, lacks a required field, or has a newer version.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let web = try Self.parseWeb(trimmed) {
            self = web
            return
        }
        let prefix = "\(Self.scheme)://pair?"
        guard trimmed.count > prefix.count, trimmed.prefix(prefix.count).lowercased() == prefix else {
            throw PairingURLError.notAPairingURL
        }
        var query = trimmed.dropFirst(prefix.count)
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        try self.init(query: query, web: nil)
    }

    /// The web form, or nil when `text` is not an http(s) URL with a `#pair=` fragment.
    private static func parseWeb(_ text: String) throws -> PairingURL? {
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), let hash = text.firstIndex(of: "#") else { return nil }
        let fragment = text[text.index(after: hash)...]
        guard fragment.hasPrefix("pair=") else { return nil }
        guard let components = URLComponents(string: String(text[..<hash])), let host = components.host, !host.isEmpty else {
            throw PairingURLError.invalid("host", "not a URL with a host")
        }
        let secure = lower.hasPrefix("https://")
        let port = components.port ?? (secure ? 443 : 80)
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var url = try PairingURL(query: fragment, web: (bare, port))
        // `http://` with a fingerprint (what bridges before issue 31 put in the QR): a bridge that serves TLS on
        // that port with its own CA. A native client pins `fp` and connects with wss:// all the same.
        url.trustFirst = !secure && url.fingerprint != nil
        return url
    }

    /// Reads the `key=value&…` parameters of either form. `web`: the host and port the web form took from its
    /// authority (the query form carries `host` and `port` parameters instead).
    private init(query: Substring, web: (host: String, port: Int)?) throws {
        var fields: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(parts[0])
            guard fields[key] == nil else { throw PairingURLError.invalid(key, "appears twice") }
            fields[key] = parts.count > 1 ? String(parts[1]) : ""
        }
        func decoded(_ key: String) throws -> String? {
            guard let raw = fields[key] else { return nil }
            guard let value = raw.removingPercentEncoding else { throw PairingURLError.invalid(key, "bad percent-encoding") }
            return value
        }
        func required(_ key: String) throws -> String {
            guard let value = try decoded(key), !value.isEmpty else { throw PairingURLError.missing(key) }
            return value
        }

        let versionText: String = if web == nil { try required("v") } else { String(try required("pair").drop { $0 == "v" }) }
        guard let version = Int(versionText), version >= 1 else { throw PairingURLError.invalid("v", "not a version") }
        guard version <= Self.currentVersion else { throw PairingURLError.unsupportedVersion(version) }
        let portValue: Int? = if let web { web.port } else { Int(try required("port")) }
        guard let port = portValue, (1...65535).contains(port) else {
            throw PairingURLError.invalid("port", "not a port number")
        }
        let credential: Credential
        if let code = try decoded("code"), !code.isEmpty {
            credential = .pairingCode(code)
        } else if let token = try decoded("token"), !token.isEmpty {
            credential = .staticToken(token)
        } else {
            throw PairingURLError.missing("code")
        }
        let host: String = if let web { web.host } else { try required("host") }
        var addresses: [String] = []
        for item in (fields["addrs"] ?? "").split(separator: ",") {
            guard let address = String(item).removingPercentEncoding else {
                throw PairingURLError.invalid("addrs", "bad percent-encoding")
            }
            addresses.append(address)
        }
        self.init(
            version: version, host: host, port: port, credential: credential,
            addresses: addresses.isEmpty ? [host] : addresses,
            serverId: try decoded("id") ?? "", serverName: try decoded("name") ?? "",
            fingerprint: try decoded("fp").flatMap { $0.isEmpty ? nil : $0 })
    }

    /// RFC 3986 unreserved characters plus `:` `@` `/`, which a query value may carry literally (IPv6
    /// addresses stay readable). Everything else, `,` `&` `=` `+` `#` `%` and spaces included, is escaped.
    private static let allowed: CharacterSet = {
        var set = CharacterSet()
        set.insert(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:@/")
        return set
    }()

    private static func encode(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}

/// Why a string is not a usable pairing URL.
public struct PairingURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// Not `codex-bridge://pair?…`.
        case notAPairingURL
        /// A required parameter is absent or empty.
        case missing
        /// A parameter has an unusable value.
        case invalid
        /// Written by a newer bridge than this parser knows.
        case unsupportedVersion
    }

    /// The kind of failure.
    public let code: Code
    /// A message for a person.
    public let message: String

    public var description: String { message }

    /// Not a pairing URL at all.
    public static let notAPairingURL = PairingURLError(
        code: .notAPairingURL, message: "not a pairing URL (expected \(PairingURL.scheme)://pair?…)")

    /// A required parameter is missing.
    public static func missing(_ key: String) -> PairingURLError {
        PairingURLError(code: .missing, message: "pairing URL has no \(key)=")
    }

    /// A parameter's value is unusable.
    public static func invalid(_ key: String, _ why: String) -> PairingURLError {
        PairingURLError(code: .invalid, message: "pairing URL parameter \(key): \(why)")
    }

    /// The URL's version is newer than this parser.
    public static func unsupportedVersion(_ version: Int) -> PairingURLError {
        PairingURLError(
            code: .unsupportedVersion,
            message: "pairing URL version \(version) is newer than this client understands (\(PairingURL.currentVersion))")
    }
}
