import Foundation

/// Which browser pages may open a WebSocket to the bridge: only its own origin (the scheme it serves and the
/// `Host` the request came to). A browser always sends `Origin` on a WebSocket upgrade, an `http(s)` origin
/// or `null` (sandboxed frames, `file:` pages): a page on another site (which could otherwise drive a paired
/// phone's session, or probe the bridge) is refused. Clients that are not browsers send no `Origin`, or one
/// no page can have (swift-websocket's client sends `ws://HOST`), and are unaffected.
struct OriginPolicy: Sendable {
    /// `https` when the bridge serves TLS.
    let secure: Bool

    /// Whether an upgrade carrying `origin` (nil: no header) to `authority` (the Host) may proceed.
    func allows(origin: String?, authority: String?) -> Bool {
        guard let origin else { return true }
        let lowered = origin.lowercased()
        guard lowered == "null" || lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else { return true }
        guard let authority, let own = Self.endpoint(authority: authority, secure: secure),
            let components = URLComponents(string: origin), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), components.path.isEmpty || components.path == "/"
        else { return false }
        guard scheme == (secure ? "https" : "http") else { return false }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return bare == own.host && port == own.port
    }

    /// The host (lowercased, IPv6 without brackets) and port of a Host header value.
    static func endpoint(authority: String, secure: Bool) -> (host: String, port: Int)? {
        let defaultPort = secure ? 443 : 80
        let lower = authority.lowercased()
        if lower.hasPrefix("[") {
            guard let close = lower.firstIndex(of: "]") else { return nil }
            let host = String(lower[lower.index(after: lower.startIndex)..<close])
            let rest = lower[lower.index(after: close)...]
            if rest.isEmpty { return (host, defaultPort) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()) else { return nil }
            return (host, port)
        }
        let parts = lower.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return (lower, defaultPort)
        case 2:
            guard let port = Int(parts[1]) else { return nil }
            return (String(parts[0]), port)
        default: return nil
        }
    }
}
