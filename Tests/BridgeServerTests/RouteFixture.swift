import BridgeProtocol
import BridgeStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging

@testable import BridgeServer

/// The HTTP routes as `serve` wires them (``HTTPRoutes``), in-process: the real credential check over a real
/// device registry (SQLite in a fresh directory), the real route code, and a stand-in only behind each route's
/// small protocol.
struct RouteFixture {
    let directory: URL
    let secret = "s3cret-for-the-route-fixture"
    let registry: DeviceRegistry
    let credentials: CredentialCheck
    let audit: AuditLog
    let logger = Logger(label: "routes", factory: { _ in SwiftLogNoOpLogHandler() })
    /// A device that may only `observe`.
    let watcher: PairedDevice
    /// A device with the standard scopes (observe, operate, approve).
    let driver: PairedDevice

    init() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("routes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let logger = self.logger
        registry = DeviceRegistry(
            database: try BridgeDatabase(paths: StatePaths(configDirectory: directory, stateDirectory: directory), logger: logger),
            logger: logger)
        audit = AuditLog(database: registry.database)
        let secretFile = directory.appendingPathComponent("token")
        try Data(secret.utf8).write(to: secretFile)
        watcher = try await registry.redeem(
            code: try await registry.mintPairingCode(ttl: .seconds(60), scopes: Scopes([.observe])).code, device: DeviceInfo(), address: nil
        )
        driver = try await registry.redeem(
            code: try await registry.mintPairingCode(ttl: .seconds(60)).code, device: DeviceInfo(), address: nil)
        credentials = CredentialCheck(
            sharedSecretFile: secretFile, devices: RegistryDeviceAuthenticator(registry: registry, logger: logger),
            rateLimiter: AuthRateLimiter(limit: 1000, window: .seconds(60)), logger: logger)
    }

    var auditor: Auditor { Auditor(log: audit, logger: logger) }

    /// `routes` behind the same outer responder as the server's (the security headers on every answer).
    func application(_ configure: (inout HTTPRoutes) -> Void) -> some ApplicationProtocol {
        var routes = HTTPRoutes(credentials: credentials)
        configure(&routes)
        let router = Router(context: BridgeRequestContext.self)
        routes.add(to: router)
        return Application(responder: SecurityHeadersResponder(inner: router.buildResponder()))
    }

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    /// The `code` of a `{"code","message"}` answer.
    static func code(_ response: TestResponse) -> String? {
        (try? JSONValue(parsing: Data(response.body.readableBytesView)))?["code"]?.stringValue
    }
}
