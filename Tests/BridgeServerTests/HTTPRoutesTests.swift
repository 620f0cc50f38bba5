import BridgeProtocol
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import BridgeServer

/// The HTTP side in-process (HummingbirdTesting, no socket): the one bearer check in front of a group of routes,
/// the one error type, and the headers on every answer (issue 23 item 5, issue 22 finding 8).
@Suite struct HTTPRoutesTests {
    func application() throws -> (some ApplicationProtocol, secret: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let secret = "s3cret-for-the-route-test"
        let secretFile = directory.appendingPathComponent("token")
        try Data(secret.utf8).write(to: secretFile)
        let configuration = BridgeServerConfiguration(server: ServerInfo(id: "test", name: "test", version: "0"))
        let authenticator = CredentialCheck(
            sharedSecretFile: secretFile, rateLimiter: AuthRateLimiter(configuration: configuration), logger: Logger(label: "test"))
        let router = Router(context: BridgeRequestContext.self)
        router.group().add(middleware: BearerAuthMiddleware(authenticator)).get("/private") { _, context in
            context.principal == .sharedSecret ? "shared secret" : "someone else"
        }
        router.get("/public") { _, _ in "hello" }
        return (Application(responder: SecurityHeadersResponder(inner: router.buildResponder())), secret)
    }

    static func expectSecurityHeaders(_ response: TestResponse, _ what: String) {
        #expect(response.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'self'") == true, "\(what)")
        #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(what)")
        #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(what)")
    }

    @Test func theBearerCheckGuardsTheGroupWithOneErrorShape() async throws {
        let (app, secret) = try application()
        try await app.test(.router) { client in
            try await client.execute(uri: "/private", method: .get) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[.wwwAuthenticate] == #"Bearer realm="codex-bridge""#)
                let body = try JSONValue(parsing: Data(response.body.readableBytesView))
                #expect(body["code"] == "unauthorized")
                #expect(response.headers[.cacheControl] == "no-store")
                Self.expectSecurityHeaders(response, "401")
            }
            try await client.execute(uri: "/private", method: .get, headers: [.authorization: "Bearer \(secret)"]) { response in
                #expect(response.status == .ok && String(buffer: response.body) == "shared secret")
                #expect(response.headers[.cacheControl] == "no-store")
            }
            // A pairing code is never a bearer credential.
            try await client.execute(uri: "/private", method: .get, headers: [.authorization: "Bearer ABCDE12345"]) { response in
                #expect(response.status == .unauthorized)
            }
        }
    }

    @Test func answersNoRouteMadeCarryTheHeadersToo() async throws {
        let (app, _) = try application()
        try await app.test(.router) { client in
            try await client.execute(uri: "/a/b/c", method: .get) { response in
                #expect(response.status == .notFound)
                Self.expectSecurityHeaders(response, "404")
                #expect(response.headers[.cacheControl] == "no-store")
            }
            try await client.execute(uri: "/public", method: .post) { response in
                #expect(response.status.code >= 400)
                Self.expectSecurityHeaders(response, "POST /public")
            }
            try await client.execute(uri: "/public", method: .get) { response in
                #expect(response.status == .ok)
                Self.expectSecurityHeaders(response, "200")
            }
        }
    }
}
