import Foundation

/// The preview cookies: one per preview origin, named after its port (`codex_bridge_preview_9102`), because cookies
/// ignore ports: every port of the host gets every cookie of the host, so one name would be one cookie for all
/// previews (opening one would replace the other's), and the proxy also checks that the session a cookie names is
/// the origin's it arrived on. How they are set, found in a `Cookie` header, removed from one before the request
/// goes to a dev server, and kept from being set or shadowed by a dev server's `Set-Cookie`.
///
/// Names are read as browsers read them (RFC 6265bis 5.6): the name is what precedes the first `=`, with
/// whitespace trimmed; a pair without `=` is a nameless cookie, which a browser sends as its value alone (so
/// `=codex_bridge_preview_9102=x` would arrive as that cookie).
public enum PreviewCookie {
    /// What every bridge cookie's name starts with. A `Set-Cookie` of such a name (in any case, with or without a
    /// `__Host-`/`__Secure-` prefix, or nameless with such a value) from a dev server is dropped.
    public static let prefix = "codex_bridge"

    /// The cookie of the preview origin on `port`.
    public static func name(port: Int) -> String { "codex_bridge_preview_\(port)" }

    /// The `Set-Cookie` value: host-only, whole origin, HttpOnly, SameSite=Strict, Secure under TLS, and no
    /// longer than the session.
    public static func setCookie(port: Int, value: String, maxAge: Int, secure: Bool) -> String {
        "\(name(port: port))=\(value); Path=/; Max-Age=\(max(0, maxAge)); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that deletes the cookie of `port`.
    public static func expired(port: Int, secure: Bool) -> String { setCookie(port: port, value: "", maxAge: 0, secure: secure) }

    /// The values of `port`'s cookie in `Cookie` headers (a browser may send more than one, with different paths).
    public static func values(port: Int, inCookieHeaders headers: [String]) -> [String] {
        let wanted = name(port: port)
        return headers.flatMap { pairs(of: $0) }.compactMap { $0.name == wanted ? $0.value : nil }
    }

    /// A `Cookie` header without any bridge cookie (of any preview); nil when nothing else is left.
    public static func stripped(_ header: String) -> String? {
        let kept = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { pair in
            guard !pair.isEmpty else { return false }
            let parsed = parse(pair)
            return !isBridgeName(parsed.name.isEmpty ? parsed.value : parsed.name)
        }
        return kept.isEmpty ? nil : kept.joined(separator: "; ")
    }

    /// Whether a `Set-Cookie` value would set a cookie a browser sends under a bridge cookie's name, or shadows one:
    /// its name as a browser parses it, or a nameless cookie's value (sent alone, it reads as `name=value`).
    public static func isOurs(setCookie: String) -> Bool {
        let pair = setCookie.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let parsed = parse(pair)
        return isBridgeName(parsed.name.isEmpty ? parsed.value : parsed.name)
    }

    /// A name (or what a browser would read as one) that is a bridge cookie's, in any case, with or without a
    /// cookie prefix.
    static func isBridgeName(_ text: String) -> Bool {
        var name = text.prefix { $0 != "=" }.trimmingCharacters(in: .whitespaces).lowercased()
        for cookiePrefix in ["__host-", "__secure-"] where name.hasPrefix(cookiePrefix) { name.removeFirst(cookiePrefix.count) }
        return name.hasPrefix(prefix)
    }

    /// One `name=value` pair as RFC 6265bis reads it: split at the first `=`, both sides trimmed; without `=`,
    /// a nameless cookie.
    static func parse(_ pair: String) -> (name: String, value: String) {
        guard let equals = pair.firstIndex(of: "=") else { return ("", pair.trimmingCharacters(in: .whitespaces)) }
        return (
            pair[..<equals].trimmingCharacters(in: .whitespaces), pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        )
    }

    private static func pairs(of header: String) -> [(name: String, value: String)] {
        header.split(separator: ";").map { parse(String($0)) }
    }
}
