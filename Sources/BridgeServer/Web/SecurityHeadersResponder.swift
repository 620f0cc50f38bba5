import HTTPTypes
import Hummingbird

/// Adds the headers every answer carries, whether a route made it or none matched (Hummingbird's own 404 and
/// 405, which route middleware never sees): a Content-Security-Policy that allows only the bridge's own
/// scripts, styles and WebSocket (no inline script, no framing, no plugins), `nosniff`, `no-referrer`,
/// `X-Frame-Options: DENY`, and `Cache-Control: no-store` on everything that does not set its own caching
/// (only the web app's public assets do) and on every answer to a request that carried credentials.
/// It wraps the router's responder, so it sees every request and every error.
struct SecurityHeadersResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context: RequestContext {
    typealias Context = Inner.Context
    let inner: Inner

    func respond(to request: Request, context: Context) async throws -> Response {
        var response: Response
        do {
            response = try await inner.respond(to: request, context: context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        Self.apply(to: &response.headers, host: request.head.authority)
        if request.headers[.authorization] != nil || response.headers[.cacheControl] == nil {
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }

    static func apply(to headers: inout HTTPFields, host: String?) {
        // A route may set a stricter policy (`GET /files` sandboxes what it sends).
        if headers[.contentSecurityPolicy] == nil { headers[.contentSecurityPolicy] = contentSecurityPolicy(host: host) }
        headers[.xContentTypeOptions] = "nosniff"
        headers[.referrerPolicy] = "no-referrer"
        headers[.xFrameOptions] = "DENY"
    }

    /// The policy. `connect-src 'self'` covers the same-origin WebSocket in CSP Level 3 browsers; older Safari
    /// needs the ws/wss origin spelled out, so it is added when the Host is a plain host[:port].
    static func contentSecurityPolicy(host: String?) -> String {
        var connect = "'self'"
        if let host, isPlainHost(host) { connect += " ws://\(host) wss://\(host)" }
        return "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
            + "connect-src \(connect); worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; "
            + "frame-ancestors 'none'; form-action 'none'"
    }

    /// A host[:port] made only of the characters a host name, an IPv4 or a bracketed IPv6 address use.
    static func isPlainHost(_ host: String) -> Bool {
        !host.isEmpty && host.utf8.count <= 255
            && host.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":")
                    || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
            }
    }
}

extension HTTPField.Name {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}
