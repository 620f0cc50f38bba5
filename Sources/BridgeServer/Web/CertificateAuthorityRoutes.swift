import BridgeProtocol
import BridgeWeb
import HTTPTypes
import Hummingbird
import NIOCore

/// The workstation's certificate authority, for phones that do not trust it yet:
/// - on every connection, TLS or not: `GET /ca.crt` (DER) and `GET /ca.mobileconfig` (an iOS profile holding
///   only that certificate), both public;
/// - on a plain-HTTP connection to the TLS port (``plaintextRouter(authority:serverName:assets:)``): the
///   "Trust this workstation" page (`/`, `trust.js`, `trust.css`, `icon.svg`) and `GET /ca.json` (the
///   fingerprint it shows), and for any other path a redirect to that page: never the app or the API.
///   Without a CA (a provided certificate, which browsers trust) every plain request is redirected to https.
struct CertificateAuthorityRoutes: Sendable {
    let authority: PublishedAuthority

    /// The files of the trust page, by request path.
    static let pageFiles = ["/": "trust.html", "/trust.js": "trust.js", "/trust.css": "trust.css", "/icon.svg": "icon.svg"]

    func addRoutes(to router: Router<BridgeRequestContext>) {
        router.get("/ca.crt") { _, _ in certificate }
        router.get("/ca.mobileconfig") { _, _ in profile }
    }

    /// `/ca.crt`: DER, as Android's and desktop certificate installers take it.
    var certificate: Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "application/x-x509-ca-cert", .contentDisposition: "attachment; filename=\"codex-bridge-ca.crt\"",
                .cacheControl: "no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: authority.certificateDER)))
    }

    /// `/ca.mobileconfig`: the profile iOS and iPadOS install from Safari.
    var profile: Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "application/x-apple-aspen-config",
                .contentDisposition: "attachment; filename=\"codex-bridge-ca.mobileconfig\"", .cacheControl: "no-store",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: authority.profile)))
    }

    /// `/ca.json`: what the trust page shows.
    func summary(serverName: String) -> Response {
        let body =
            #"{"fingerprint":"# + JSONValue.string(authority.fingerprint).jsonText + #","commonName":"#
            + JSONValue.string(authority.commonName).jsonText + #","name":"# + JSONValue.string(serverName).jsonText + "}"
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// The router of plain-HTTP connections to the TLS port.
    static func plaintextRouter(authority: PublishedAuthority?, serverName: String, assets: WebAssets?) -> Router<BridgeRequestContext> {
        let router = Router(context: BridgeRequestContext.self)
        guard let authority, let assets else {
            router.get("/") { request, _ in redirectToHTTPS(request) }
            router.get("/**") { request, _ in redirectToHTTPS(request) }
            router.head("/**") { request, _ in redirectToHTTPS(request) }
            return router
        }
        let routes = CertificateAuthorityRoutes(authority: authority)
        routes.addRoutes(to: router)
        router.get("/ca.json") { _, _ in routes.summary(serverName: serverName) }
        let web = WebRoutes(assets: assets)
        for (path, file) in pageFiles {
            router.get(RouterPath(path)) { request, _ in
                var response = web.respond(to: request, path: "/" + file)
                response.headers[.contentSecurityPolicy] = pagePolicy(host: request.head.authority)
                return response
            }
        }
        // Anything else (the app, /healthz, /metrics, …) over plain HTTP leads to the trust page.
        router.get("/**") { _, _ in Response(status: .found, headers: [.location: "/", .cacheControl: "no-store"]) }
        return router
    }

    /// The trust page's policy: its own script and style, and a request to the https side of the same host
    /// (to see whether the phone trusts the CA yet). `'self'` covers that in CSP Level 3 browsers; older ones
    /// need it spelled out.
    static func pagePolicy(host: String?) -> String {
        var connect = "'self'"
        if let host, SecurityHeadersResponder<Router<BridgeRequestContext>.Responder>.isPlainHost(host) { connect += " https://\(host)" }
        return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src \(connect); "
            + "base-uri 'none'; frame-ancestors 'none'; form-action 'none'"
    }

    /// A permanent redirect to the same path over https (a provided certificate's port; browsers trust it).
    static func redirectToHTTPS(_ request: Request) -> Response {
        guard let host = request.head.authority, SecurityHeadersResponder<Router<BridgeRequestContext>.Responder>.isPlainHost(host) else {
            return Response(
                status: .badRequest, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"code":"bad_request","message":"no Host"}"#)))
        }
        let path = request.uri.path.hasPrefix("/") ? request.uri.path : "/"
        let query = request.uri.query.map { "?" + $0 } ?? ""
        return Response(status: .permanentRedirect, headers: [.location: "https://\(host)\(path)\(query)", .cacheControl: "no-store"])
    }
}
