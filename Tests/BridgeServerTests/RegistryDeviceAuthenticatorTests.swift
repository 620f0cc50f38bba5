import BridgeHub
import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import Synchronization
import Testing

@testable import BridgeServer

@Suite struct RegistryDeviceAuthenticatorTests {
    private static func withRegistry(_ body: (DeviceRegistry, LogCapture) async throws -> Void) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-devauth-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let logs = LogCapture()
        let paths = StatePaths(configDirectory: dir, stateDirectory: dir)
        let registry = DeviceRegistry(database: try BridgeDatabase(paths: paths, logger: logs.logger), logger: logs.logger)
        try await body(registry, logs)
    }

    @Test func codeIsRedeemedOnceThenTheDeviceTokenWorks() async throws {
        try await Self.withRegistry { registry, logs in
            let auth = RegistryDeviceAuthenticator(registry: registry, logger: logs.logger)
            let code = try await registry.mintPairingCode(ttl: .seconds(60))
            let first = await auth.redeem(
                code: code.grouped.lowercased(), device: DeviceInfo(name: "Phone", platform: "ios"), remoteAddress: "10.0.0.2")
            guard case .accepted(.device(let id), let token?, let scopes) = first, scopes == .standard else {
                Issue.record("expected a new device, got \(first)")
                return
            }
            #expect(await auth.redeem(code: code.code, device: nil, remoteAddress: "10.0.0.2") == .rejected)
            #expect(await auth.authenticateDevice(token: token, remoteAddress: "10.0.0.3") == .accepted(.device(id: id), scopes: .standard))
            #expect(await auth.authenticateDevice(token: "not-a-token", remoteAddress: "10.0.0.3") == .rejected)
            #expect(await !auth.isRevoked(deviceId: id))
            #expect(await auth.isRevoked(deviceId: "nosuchdevice"))

            try await registry.revoke(id: id)
            #expect(await auth.isRevoked(deviceId: id))
            #expect(await auth.revokedDeviceIds(among: [id, "other"]) == [id, "other"])
            #expect(await auth.authenticateDevice(token: token, remoteAddress: "10.0.0.3") == .rejected)

            let text = logs.all
            #expect(!text.contains(code.code) && !text.contains(code.grouped) && !text.contains(token))
            #expect(text.contains("codeAlreadyUsed"))
        }
    }

    @Test func unknownCodeIsRejected() async throws {
        try await Self.withRegistry { registry, logs in
            let auth = RegistryDeviceAuthenticator(registry: registry, logger: logs.logger)
            #expect(await auth.redeem(code: "ABCDE-FGHJK", device: nil, remoteAddress: "::1") == .rejected)
            #expect(!logs.all.contains("ABCDE"))
        }
    }

    /// Regression (issue 11, finding 5): wrong codes from many addresses burn a live code (it was guessable
    /// without bound across addresses). Failed before the per-code cap.
    @Test func liveCodeIsBurntAfterTooManyWrongCodes() async throws {
        try await Self.withRegistry { registry, logs in
            let auth = RegistryDeviceAuthenticator(registry: registry, logger: logs.logger)
            let code = try await registry.mintPairingCode(ttl: .seconds(600))
            for index in 0..<DeviceRegistry.maxFailedAttemptsPerCode {
                #expect(
                    await auth.redeem(code: "ABCDE-FGHJ\(index % 2 == 0 ? "K" : "M")", device: nil, remoteAddress: "10.0.\(index).1")
                        == .rejected)
            }
            #expect(await auth.redeem(code: code.code, device: nil, remoteAddress: "10.9.9.9") == .rejected)
            #expect(logs.all.contains("codeBurnt"))
            let fresh = try await registry.mintPairingCode(ttl: .seconds(600))
            guard case .accepted = await auth.redeem(code: fresh.code, device: nil, remoteAddress: "10.9.9.9") else {
                Issue.record("a code minted after the storm must pair")
                return
            }
        }
    }

    @Test func watcherClosesOnlyRevokedDevices() async throws {
        let connections = ConnectionRegistry()
        let closed = Mutex<[String: (UInt16, String)]>([:])
        for name in ["phone", "tablet", "secret"] {
            let id = try #require(connections.register { _ in { code, reason in closed.withLock { $0[name] = (code, reason) } } })
            connections.authenticated(id, as: name == "secret" ? .sharedSecret : .device(id: name))
        }
        let asked = Mutex<Set<String>>([])
        let watcher = RevocationWatcher(registry: connections, logger: Logger(label: "test")) { ids in
            asked.withLock { $0 = ids }
            return ids.filter { $0 == "phone" }
        }
        #expect(await watcher.checkOnce() == 1)
        #expect(asked.withLock { $0 } == ["phone", "tablet"])
        let result = closed.withLock { $0 }
        #expect(result.keys.sorted() == ["phone"])
        #expect(result["phone"]?.0 == 1008 && result["phone"]?.1 == "device revoked")
    }
}
