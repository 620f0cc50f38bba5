import BridgeProtocol
import BridgeStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import BridgeServer

/// The HTTP routes ask the same scope gate as WebSocket requests: a device token without the route's scope gets
/// 403 `forbidden` naming it; with it, the route runs; the shared secret holds every scope.
@Suite struct HTTPScopeTests {
    @Test func aRouteAnswersOnlyACredentialWithItsScope() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scopes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let registry = DeviceRegistry(
            database: try BridgeDatabase(paths: StatePaths(configDirectory: directory, stateDirectory: directory), logger: logger),
            logger: logger)
        let secret = "s3cret-for-the-scope-test"
        let secretFile = directory.appendingPathComponent("token")
        try Data(secret.utf8).write(to: secretFile)
        let watcher = try await registry.redeem(
            code: try await registry.mintPairingCode(ttl: .seconds(60), scopes: Scopes([.observe])).code, device: DeviceInfo(), address: nil
        )
        let driver = try await registry.redeem(
            code: try await registry.mintPairingCode(ttl: .seconds(60)).code, device: DeviceInfo(), address: nil)

        let router = Router(context: BridgeRequestContext.self)
        let authenticator = CredentialCheck(
            sharedSecretFile: secretFile, devices: RegistryDeviceAuthenticator(registry: registry, logger: Logger(label: "test")),
            rateLimiter: AuthRateLimiter(limit: 1000, window: .seconds(60)), logger: Logger(label: "test"))
        router.group().add(middleware: BearerAuthMiddleware(authenticator)).post("/act") { _, context in
            if let refusal = context.refusal(unless: .operate, for: "POST /act") { return refusal.response }
            return Response(status: .ok)
        }
        let app = Application(responder: router.buildResponder())
        try await app.test(.router) { client in
            try await client.execute(uri: "/act", method: .post, headers: [.authorization: "Bearer \(watcher.deviceToken)"]) { response in
                #expect(response.status == .forbidden)
                let body = try JSONValue(parsing: Data(response.body.readableBytesView))
                #expect(body["code"] == "forbidden" && body["scope"] == "operate")
                #expect(body["message"]?.stringValue?.contains("codex-bridge devices scope \(watcher.deviceId) observe,operate") == true)
            }
            for token in [driver.deviceToken, secret] {
                try await client.execute(uri: "/act", method: .post, headers: [.authorization: "Bearer \(token)"]) { response in
                    #expect(response.status == .ok)
                }
            }
            // Granted meanwhile (from another process): the next request has it.
            try await registry.setScopes(id: watcher.deviceId, scopes: .standard)
            try await client.execute(uri: "/act", method: .post, headers: [.authorization: "Bearer \(watcher.deviceToken)"]) { response in
                #expect(response.status == .ok)
            }
        }
    }
}
