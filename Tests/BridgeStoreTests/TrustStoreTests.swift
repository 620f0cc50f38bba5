import BridgeProtocol
import Foundation
import GRDB
import Testing

@testable import BridgeStore

/// Device scopes, pairings that wait for the workstation, and the audit log, on a real SQLite file.
@Suite struct TrustStoreTests {
    private static func withRegistry(
        _ clock: TestClock = TestClock(), _ body: (DeviceRegistry, AuditLog, TestClock) async throws -> Void
    ) async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let logger = CapturedLogs().logger
        let database = try BridgeDatabase(paths: state.paths, logger: logger)
        try await body(
            DeviceRegistry(database: database, now: { clock.now }, logger: logger), AuditLog(database: database, now: { clock.now }), clock)
    }

    @Test func aCodeCarriesItsScopesToTheDevice() async throws {
        try await Self.withRegistry { registry, _, _ in
            let narrow = try await registry.mintPairingCode(ttl: .seconds(60), scopes: Scopes([.observe, .approve]))
            let standard = try await registry.mintPairingCode(ttl: .seconds(60))
            let watcher = try await registry.redeem(code: narrow.code, device: DeviceInfo(name: "Watch"), address: nil)
            let phone = try await registry.redeem(code: standard.code, device: DeviceInfo(name: "Phone"), address: nil)
            #expect(watcher.record.scopes == Scopes([.observe, .approve]))
            #expect(phone.record.scopes == .standard)
            #expect(
                try await registry.authenticate(deviceToken: watcher.deviceToken, address: nil)?.scopes == Scopes([.observe, .approve]))

            let changed = try await registry.setScopes(id: phone.deviceId, scopes: .all)
            #expect(changed.scopes == .all)
            #expect(try await registry.device(id: phone.deviceId)?.scopes == .all)
            await #expect(throws: DeviceRegistryError.noScopes) { try await registry.setScopes(id: phone.deviceId, scopes: .none) }
            await #expect(throws: DeviceRegistryError.deviceNotFound("nope")) { try await registry.setScopes(id: "nope", scopes: .all) }

            try await registry.revoke(id: watcher.deviceId)
            let scopes = try await registry.scopes(among: [phone.deviceId, watcher.deviceId, "ghost"])
            #expect(scopes == [phone.deviceId: .all])
            await #expect(throws: DeviceRegistryError.alreadyRevoked(watcher.deviceId)) {
                try await registry.setScopes(id: watcher.deviceId, scopes: .all)
            }
        }
    }

    @Test func aPairingWaitsForTheWorkstationAndOnlyAnAllowedOneIsStored() async throws {
        try await Self.withRegistry { registry, _, clock in
            let code = try await registry.mintPairingCode(ttl: .seconds(60), scopes: Scopes([.observe]))
            let request = try await registry.requestPairing(
                code: code.code, device: DeviceInfo(name: "Ana's phone", platform: "web"), address: "10.0.0.9", timeout: .seconds(300))
            #expect(request.checkCode.count == 4 && request.checkCode.allSatisfy(\.isNumber))
            #expect(request.scopes == Scopes([.observe]))
            #expect(request.expiresAt == clock.now.addingTimeInterval(300))
            // The code is spent: a second phone cannot use it while the first one waits.
            await #expect(throws: DeviceRegistryError.codeAlreadyUsed) {
                try await registry.requestPairing(code: code.code, device: DeviceInfo(), address: nil)
            }
            #expect(try await registry.pairingRequests().map(\.deviceId) == [request.deviceId])
            #expect(try await registry.pairingDecision(id: request.deviceId) == .waiting)
            #expect(try await registry.list().isEmpty)
            await #expect(throws: DeviceRegistryError.noPairingRequest(request.deviceId)) {
                try await registry.completePairing(id: request.deviceId)
            }

            // Allowing takes the check code the phone shows: none, or another phone's, leaves it waiting.
            let wrong = request.checkCode == "0000" ? "0001" : "0000"
            for given in [nil, wrong, request.checkCode + "0", ""] {
                await #expect(throws: DeviceRegistryError.checkCodeMismatch(request.deviceId)) {
                    try await registry.decidePairing(id: request.deviceId, allow: true, check: given)
                }
            }
            #expect(try await registry.pairingDecision(id: request.deviceId) == .waiting)
            let spaced = request.checkCode.map(String.init).joined(separator: " ")  // as the phone shows it
            try await registry.decidePairing(id: request.deviceId, allow: true, check: " \(spaced) ")
            #expect(try await registry.pairingRequests().isEmpty)
            #expect(try await registry.pairingDecision(id: request.deviceId) == .allowed)
            await #expect(throws: DeviceRegistryError.noPairingRequest(request.deviceId)) {
                try await registry.decidePairing(id: request.deviceId, allow: false)
            }
            let paired = try await registry.completePairing(id: request.deviceId)
            #expect(paired.deviceId == request.deviceId)
            #expect(
                paired.record.name == "Ana's phone" && paired.record.lastAddress == "10.0.0.9" && paired.record.scopes == Scopes([.observe])
            )
            #expect(try await registry.authenticate(deviceToken: paired.deviceToken, address: nil)?.id == request.deviceId)
            #expect(try await registry.pairingDecision(id: request.deviceId) == .gone)
        }
    }

    @Test func aDeniedOrExpiredPairingLeavesNothing() async throws {
        try await Self.withRegistry { registry, _, clock in
            let first = try await registry.mintPairingCode(ttl: .seconds(600))
            let second = try await registry.mintPairingCode(ttl: .seconds(600))
            let denied = try await registry.requestPairing(code: first.code, device: DeviceInfo(name: "A"), address: nil)
            let late = try await registry.requestPairing(
                code: second.code, device: DeviceInfo(name: "B"), address: nil, timeout: .seconds(60))
            try await registry.decidePairing(id: denied.deviceId, allow: false)
            #expect(try await registry.pairingDecision(id: denied.deviceId) == .denied)
            try await registry.dropPairingRequest(id: denied.deviceId)
            clock.advance(by: 61)
            // Past its time it is no longer listed nor decidable.
            #expect(try await registry.pairingRequests().isEmpty)
            await #expect(throws: DeviceRegistryError.noPairingRequest(late.deviceId)) {
                try await registry.decidePairing(id: late.deviceId, allow: true, check: late.checkCode)
            }
            try await registry.dropAllPairingRequests()
            #expect(try await registry.pairingDecision(id: late.deviceId) == .gone)
            #expect(try await registry.list().isEmpty)
            let rows = try await registry.database.pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pairingRequest") }
            #expect(rows == 0)
        }
    }

    @Test func theAuditLogFiltersByDeviceAndTimeAndPrunes() async throws {
        try await Self.withRegistry { registry, audit, clock in
            let code = try await registry.mintPairingCode(ttl: .seconds(60))
            let phone = try await registry.redeem(code: code.code, device: DeviceInfo(name: "Phone"), address: nil)
            try await audit.record(
                AuditEntry(
                    at: 0, actor: .device, deviceId: phone.deviceId, address: "10.0.0.2", kind: "startThread", threadId: "t1", outcome: "ok"
                ))
            clock.advance(by: 3600)
            try await audit.record(
                AuditEntry(at: 0, actor: .workstation, deviceId: phone.deviceId, kind: "setDeviceScopes", outcome: "ok", detail: "observe"))
            try await audit.record(AuditEntry(at: 0, actor: .sharedSecret, kind: "approve", threadId: "t1", outcome: "forbidden"))
            let all = try await audit.entries()
            #expect(all.map(\.kind) == ["approve", "setDeviceScopes", "startThread"])
            // The device's name comes from the device table when the entry has none.
            #expect(all.last?.deviceName == "Phone" && all.last?.address == "10.0.0.2" && all.last?.threadId == "t1")
            #expect(try await audit.entries(deviceId: phone.deviceId).map(\.kind) == ["setDeviceScopes", "startThread"])
            #expect(try await audit.entries(since: clock.now.timeIntervalSince1970 - 60).count == 2)
            #expect(try await audit.entries(limit: 1).map(\.kind) == ["approve"])
            #expect(try await audit.recent(of: [phone.deviceId], limit: 1)[phone.deviceId]?.map(\.kind) == ["setDeviceScopes"])
            try await audit.prune(maxAge: 1800)
            #expect(try await audit.entries().map(\.kind) == ["approve", "setDeviceScopes"])
        }
    }

    /// A database from before scopes existed: its devices keep what they could do (observe, operate, approve).
    @Test func devicesPairedBeforeScopesKeepTheirRights() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        try FileManager.default.createDirectory(at: state.paths.stateDirectory, withIntermediateDirectories: true)
        do {
            let pool = try DatabasePool(path: state.paths.databaseFile.path)
            var migrator = DatabaseMigrator()
            // The schema as it was before the trust migration (later ones, such as v9, come after it anyway).
            for (identifier, migrate) in BridgeMigrations.all.prefix(while: { $0.0 != "v8-trust" }) {
                migrator.registerMigration(identifier, migrate: migrate)
            }
            try migrator.migrate(pool)
            try await pool.write { db in
                try db.execute(
                    sql:
                        "INSERT INTO device (id, name, tokenHash, pairedAt, ackedSeq) VALUES ('old', 'Old phone', x'00', '2025-01-01 00:00:00', 0)"
                )
            }
            try pool.close()
        }
        let logger = CapturedLogs().logger
        let registry = DeviceRegistry(database: try BridgeDatabase(paths: state.paths, logger: logger), logger: logger)
        #expect(try await registry.device(id: "old")?.scopes == .standard)
        #expect(BridgeMigrations.all.contains { $0.0 == "v8-trust" })
    }
}
