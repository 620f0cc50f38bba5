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

    /// A linked home bridge's request: the row names the link, and who the link says it acted for, as reported.
    @Test func theAuditLogKeepsWhoALinkActedFor() async throws {
        try await Self.withRegistry { _, audit, _ in
            let behalf = OnBehalfOf(actor: .device, deviceId: "phone-at-home", name: "Ana's phone")
            try await audit.record(
                AuditEntry(at: 0, actor: .device, deviceId: "link", kind: "approve", outcome: "ok", detail: "accept", onBehalfOf: behalf))
            try await audit.record(AuditEntry(at: 0, actor: .device, deviceId: "link", kind: "startThread", outcome: "ok"))
            let entries = try await audit.entries()
            #expect(entries.map(\.onBehalfOf) == [nil, behalf])
        }
    }

    /// Regression (issue 31, finding 7): every refusal was a row of its own (thousands a second from one
    /// observe-only device) and the log kept the newest 100 000 rows of any kind, so a minute of refusals pushed
    /// out every pairing, scope change and revocation. Alike refusals (device, kind, outcome) now share one row
    /// with a count, a device starts only so many refusal rows a minute (the rest share one more row), and only
    /// refusals are ever pruned by count.
    @Test func refusalsCoalesceAreRateLimitedAndNeverPushOutWhatMatters() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let clock = TestClock()
        let database = try BridgeDatabase(paths: state.paths, logger: CapturedLogs().logger)
        let audit = AuditLog(
            database: database, now: { clock.now }, limits: AuditLog.Limits(window: 60, refusalRowsPerWindow: 5, maxRefusals: 20))
        let kept: [AuditEntry] = [
            AuditEntry(at: 0, actor: .device, deviceId: "phone", kind: "pair", outcome: "ok", detail: "Phone"),
            AuditEntry(at: 0, actor: .bridge, deviceId: "late", kind: "pairingExpired", outcome: "pairing_expired"),
            AuditEntry(at: 0, actor: .workstation, deviceId: "phone", kind: "setDeviceScopes", outcome: "ok", detail: "observe"),
            AuditEntry(at: 0, actor: .device, deviceId: "phone", kind: "startThread", threadId: "t0", outcome: "ok", detail: "/w"),
            AuditEntry(at: 0, actor: .workstation, deviceId: "old", kind: "revokeDevice", outcome: "ok", detail: "old"),
        ]
        for entry in kept { try await audit.record(entry) }

        // 1 000 alike refusals: one row, counted, the first one's thread kept, the last one's time.
        for index in 0..<1000 {
            if index == 999 { clock.advance(by: 30) }
            try await audit.record(
                AuditEntry(
                    at: 0, actor: .device, deviceId: "spam", address: "10.0.0.9", kind: "startThread", threadId: "t\(index)",
                    outcome: "forbidden"))
        }
        var rows = try await audit.entries(deviceId: "spam")
        #expect(rows.count == 1 && rows.first?.count == 1000 && rows.first?.threadId == "t0", "\(rows)")
        #expect(rows.first.map { $0.lastAt == $0.at + 30 } == true)

        // 50 kinds within the same minute: 4 more rows of their own, then one row for the rest.
        for index in 0..<50 {
            try await audit.record(AuditEntry(at: 0, actor: .device, deviceId: "spam", kind: "kind\(index)", outcome: "forbidden"))
        }
        rows = try await audit.entries(deviceId: "spam", limit: 100)
        #expect(rows.count == 6, "\(rows.map(\.kind))")
        #expect(rows.first?.kind == AuditLog.limitedKind && rows.first?.outcome == AuditLog.limitedOutcome && rows.first?.count == 46)
        // Another device is not limited by this one.
        try await audit.record(AuditEntry(at: 0, actor: .device, deviceId: "other", kind: "approve", outcome: "forbidden"))
        #expect(try await audit.entries(deviceId: "other").count == 1)

        // A minute later the same refusal starts a new row.
        clock.advance(by: 61)
        try await audit.record(AuditEntry(at: 0, actor: .device, deviceId: "spam", kind: "startThread", outcome: "forbidden"))
        rows = try await audit.entries(deviceId: "spam", limit: 100)
        #expect(rows.count == 7 && rows.first?.kind == "startThread" && rows.first?.count == 1)

        // Hours of it: pruning by count drops only the oldest refusals, never what matters.
        for _ in 0..<30 {
            clock.advance(by: 61)
            for kind in 0..<3 {
                try await audit.record(AuditEntry(at: 0, actor: .device, deviceId: "spam", kind: "k\(kind)", outcome: "forbidden"))
            }
        }
        try await audit.prune(maxAge: 86400)
        let all = try await audit.entries(limit: 1000)
        #expect(all.filter { $0.deviceId == "spam" || $0.deviceId == "other" }.count == 20)
        for entry in kept {
            #expect(all.contains { $0.kind == entry.kind && $0.deviceId == entry.deviceId && $0.outcome == entry.outcome }, "\(entry.kind)")
        }
        // Age still prunes everything.
        clock.advance(by: 86400 * 2)
        try await audit.prune(maxAge: 86400)
        #expect(try await audit.entries(limit: 1000).isEmpty)
    }

    /// A database from before scopes existed: its devices keep what they could do (observe, operate, approve).
    @Test func devicesPairedBeforeScopesKeepTheirRights() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        do {
            // The schema as it was before the trust migration (later ones, such as v9, come after it anyway).
            let pool = try state.database(before: "v8-trust")
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
