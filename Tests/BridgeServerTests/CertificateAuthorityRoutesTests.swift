import BridgeProtocol
import BridgeStore
import BridgeWeb
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import BridgeServer

/// The CA's routes in-process: `/ca.crt` and `/ca.mobileconfig` on every connection, and the router of plain
/// HTTP on the TLS port (the trust page and `/ca.json`, a redirect for anything else; without a CA, https). The
/// in-process client always sends the host `localhost`.
@Suite struct CertificateAuthorityRoutesTests {
    static let authority = PublishedAuthority(
        certificateDER: [0x30, 0x82, 0x01, 0x0A], fingerprint: "AB:CD", commonName: "codex-bridge CA box", profile: Array("<plist/>".utf8))

    static func application(_ router: Router<BridgeRequestContext>) -> some ApplicationProtocol {
        Application(responder: SecurityHeadersResponder(inner: router.buildResponder()))
    }

    @Test func theCertificateAndProfileArePublicDownloads() async throws {
        let router = Router(context: BridgeRequestContext.self)
        CertificateAuthorityRoutes(authority: Self.authority).addRoutes(to: router)
        try await Self.application(router).test(.router) { client in
            let certificate = try await client.execute(uri: "/ca.crt", method: .get)
            #expect(certificate.status == .ok && Array(certificate.body.readableBytesView) == Self.authority.certificateDER)
            #expect(certificate.headers[.contentType] == "application/x-x509-ca-cert")
            #expect(certificate.headers[.contentDisposition] == #"attachment; filename="codex-bridge-ca.crt""#)
            let profile = try await client.execute(uri: "/ca.mobileconfig", method: .get)
            #expect(profile.status == .ok && String(buffer: profile.body) == "<plist/>")
            #expect(profile.headers[.contentType] == "application/x-apple-aspen-config")
            #expect(try await client.execute(uri: "/ca.crt", method: .post).status == .notFound)
            #expect(try await client.execute(uri: "/ca.key", method: .get).status == .notFound)
        }
    }

    @Test func plainHTTPOnTheTLSPortShowsOnlyTheTrustPage() async throws {
        let router = CertificateAuthorityRoutes.plaintextRouter(authority: Self.authority, serverName: "box", assets: .embedded)
        try await Self.application(router).test(.router) { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .ok && String(buffer: page.body).contains("trust.js"))
            #expect(page.headers[.contentSecurityPolicy]?.contains("connect-src 'self' https://localhost") == true)
            let summary = try JSONValue(parsing: Data(try await client.execute(uri: "/ca.json", method: .get).body.readableBytesView))
            #expect(summary == ["fingerprint": "AB:CD", "commonName": "codex-bridge CA box", "name": "box"])
            #expect(try await client.execute(uri: "/ca.crt", method: .get).status == .ok)
            // The app, the API and anything else lead to the trust page, never to themselves.
            for uri in ["/app.js", "/metrics", "/healthz", "/files?threadId=t&path=a", "/../etc/passwd"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .found && response.headers[.location] == "/", "\(uri)")
            }
        }
    }

    @Test func withoutACAPlainHTTPIsSentToHTTPS() async throws {
        let router = CertificateAuthorityRoutes.plaintextRouter(authority: nil, serverName: "box", assets: .embedded)
        try await Self.application(router).test(.router) { client in
            let redirect = try await client.execute(uri: "/threads?x=1", method: .get)
            #expect(redirect.status == .permanentRedirect && redirect.headers[.location] == "https://localhost/threads?x=1")
            #expect(try await client.execute(uri: "/", method: .get).headers[.location] == "https://localhost/")
            #expect(try await client.execute(uri: "/app.js", method: .head).headers[.location] == "https://localhost/app.js")
        }
        // A Host that is not a plain host name is never echoed into a Location.
        for authority in ["evil.example/x", "a b", ""] {
            let request = Request(
                head: HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/"), body: RequestBody(buffer: ByteBuffer()))
            let response = CertificateAuthorityRoutes.redirectToHTTPS(request)
            #expect(response.status == .badRequest && response.headers[.location] == nil, "\(authority)")
        }
    }
}
