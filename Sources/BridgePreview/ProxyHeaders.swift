import Foundation

/// How the proxy rewrites headers, in both directions, as plain functions over name/value pairs (the same rules
/// serve the HTTP requests and the WebSocket upgrade).
///
/// Towards the dev server: hop-by-hop fields go (RFC 9110 7.6.1, and those `Connection` names), and so do
/// `Authorization`, `Proxy-Authorization` and every preview's cookie; `Host` becomes `localhost:PORT` (dev
/// servers that check the host accept it); an `Origin` or `Referer` on the preview origin is rewritten to
/// `http://localhost:PORT`. Back to the browser: hop-by-hop fields go, and so do a `Set-Cookie` that would set or
/// shadow a bridge cookie (``PreviewCookie/isOurs(setCookie:)``), `Service-Worker-Allowed` (no worker registers
/// on a preview origin) and `Clear-Site-Data` (its `"cookies"` would clear every preview's cookie of the host);
/// a `Location` on `localhost:PORT` (or 127.0.0.1, ::1) is rewritten to the preview origin.
public struct ProxyHeaders: Sendable {
    /// The dev server's port.
    public var port: Int
    /// The preview origin as the browser knows it: `https://host:8766`.
    public var previewOrigin: String

    public init(port: Int, previewOrigin: String) {
        self.port = port
        self.previewOrigin = previewOrigin
    }

    /// Response fields a dev server may not send to the browser through the proxy.
    static let withheld: Set<String> = ["service-worker-allowed", "clear-site-data"]

    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "proxy-authenticate",
    ]

    /// The dev server's own origin, as its pages and redirects name it.
    public var upstreamOrigin: String { "http://localhost:\(port)" }

    /// The request's fields as the dev server gets them. `keepUpgrade`: a WebSocket upgrade keeps `Connection:
    /// Upgrade` and `Upgrade`.
    public func request(_ fields: [(name: String, value: String)], keepUpgrade: Bool = false) -> [(name: String, value: String)] {
        let dropped = Self.hopByHop.union(Self.connectionNames(fields)).union(["authorization", "proxy-authorization", "host"])
        var out: [(name: String, value: String)] = [("Host", "localhost:\(port)")]
        for (name, value) in fields {
            let lower = name.lowercased()
            if keepUpgrade, lower == "upgrade" || lower == "connection" { continue }
            if dropped.contains(lower) { continue }
            switch lower {
            case "cookie":
                if let kept = PreviewCookie.stripped(value) { out.append((name, kept)) }
            case "origin":
                out.append((name, value == previewOrigin ? upstreamOrigin : value))
            case "referer":
                out.append((name, rewrite(value, from: previewOrigin, to: upstreamOrigin)))
            default:
                out.append((name, value))
            }
        }
        if keepUpgrade {
            out.append(("Connection", "Upgrade"))
            if let upgrade = fields.first(where: { $0.name.lowercased() == "upgrade" }) { out.append(("Upgrade", upgrade.value)) }
        }
        return out
    }

    /// The response's fields as the browser gets them.
    public func response(_ fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        let dropped = Self.hopByHop.union(Self.connectionNames(fields)).union(Self.withheld)
        var out: [(name: String, value: String)] = []
        for (name, value) in fields {
            let lower = name.lowercased()
            if dropped.contains(lower) { continue }
            if lower == "set-cookie", PreviewCookie.isOurs(setCookie: value) { continue }
            if lower == "location" || lower == "content-location" {
                out.append((name, location(value)))
                continue
            }
            out.append((name, value))
        }
        return out
    }

    /// A redirect target on the dev server's own address, moved to the preview origin; others as they are.
    public func location(_ value: String) -> String {
        for scheme in ["http", "https"] {
            for host in ["localhost", "127.0.0.1", "[::1]"] {
                let origin = "\(scheme)://\(host):\(port)"
                if value.lowercased() == origin || value.lowercased().hasPrefix(origin + "/") || value.lowercased().hasPrefix(origin + "?")
                {
                    return previewOrigin + value.dropFirst(origin.count)
                }
            }
        }
        return value
    }

    private func rewrite(_ value: String, from: String, to: String) -> String {
        value == from || value.hasPrefix(from + "/") ? to + value.dropFirst(from.count) : value
    }

    /// The field names a `Connection` header lists (they are hop-by-hop too).
    static func connectionNames(_ fields: [(name: String, value: String)]) -> Set<String> {
        Set(
            fields.filter { $0.name.lowercased() == "connection" }.flatMap {
                $0.value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            })
    }
}
