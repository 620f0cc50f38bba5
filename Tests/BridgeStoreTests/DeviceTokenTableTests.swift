import BridgeProtocol
import Foundation
import Logging
import Testing

@testable import BridgeStore

/// The in-memory device table's freshness rule, as a value (no database), then over real SQLite files with a
/// second database connection standing in for another process (`codex-bridge devices revoke`).
@Suite struct DeviceTokenTableTests {
    static let phone = Data([1, 2, 3])
    static let tablet = Data([4, 5, 6])
    static let t0 = ContinuousClock.now

    static func loaded() -> DeviceTokenTable {
        var table = DeviceTokenTable(maxAge: .milliseconds(1500))
        let rows: [Data: DeviceTokenTable.Device] = [
            phone: .init(id: "phone", scopes: .standard), tablet: .init(id: "tablet", scopes: Scopes([.observe])),
        ]
        let installed = table.loaded(rows, generation: table.beginLoad(), startedAt: t0)
        #expect(installed)
        return table
    }

    @Test func aNewTableAnswersNothing() {
        #expect(DeviceTokenTable().lookup(hash: Self.phone, now: Self.t0) == .stale)
    }

    @Test func itAnswersOnlyWithinMaxAgeOfWhenItsLoadBegan() {
        let table = Self.loaded()
        #expect(table.lookup(hash: Self.phone, now: Self.t0 + .milliseconds(1499)) == .device(.init(id: "phone", scopes: .standard)))
        #expect(table.lookup(hash: Data([9]), now: Self.t0 + .milliseconds(1499)) == .unknown)
        // What another process changed is not known past the bound: ask the database.
        #expect(table.lookup(hash: Self.phone, now: Self.t0 + .milliseconds(1500)) == .stale)
        #expect(table.lookup(hash: Data([9]), now: Self.t0 + .seconds(5)) == .stale)
    }

    @Test func thisProcesssChangesApplyAtOnce() {
        var table = Self.loaded()
        table.apply(hash: Self.phone, device: nil, id: "phone")  // revoked here
        table.apply(hash: Self.tablet, device: .init(id: "tablet", scopes: .all), id: "tablet")  // scopes changed
        let now = Self.t0 + .milliseconds(10)
        #expect(table.lookup(hash: Self.phone, now: now) == .unknown)
        #expect(table.lookup(hash: Self.tablet, now: now) == .device(.init(id: "tablet", scopes: .all)))
        #expect(table.deviceIds == ["tablet"])
    }

    @Test func aLoadThatBeganBeforeAChangeOfOursIsDiscarded() {
        var table = Self.loaded()
        let generation = table.beginLoad()
        table.apply(hash: Self.phone, device: nil, id: "phone")  // revoked while the load read the database
        let stale = [Self.phone: DeviceTokenTable.Device(id: "phone", scopes: .standard)]
        let r1 = table.loaded(stale, generation: generation, startedAt: Self.t0 + .milliseconds(5))
        #expect(!r1)
        #expect(table.lookup(hash: Self.phone, now: Self.t0 + .milliseconds(10)) == .unknown)
        // The next load, begun after the change, is installed.
        let r2 = table.loaded([:], generation: table.beginLoad(), startedAt: Self.t0 + .seconds(1))
        #expect(r2)
        #expect(table.lookup(hash: Self.tablet, now: Self.t0 + .seconds(2)) == .unknown)
    }

    @Test func invalidatedTheTableIsStaleUntilTheNextLoad() {
        var table = Self.loaded()
        table.invalidate()
        #expect(table.lookup(hash: Self.phone, now: Self.t0) == .stale)
        let r3 = table.loaded([:], generation: table.beginLoad(), startedAt: Self.t0 + .milliseconds(1))
        #expect(r3)
        #expect(table.lookup(hash: Self.phone, now: Self.t0 + .milliseconds(2)) == .unknown)
    }

    @Test func lastSeenIsWrittenAtMostEveryIntervalOrWhenTheAddressChanges() {
        var table = Self.loaded()
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        let r4 = table.seen(hash: Self.phone, at: start, address: "10.0.0.1", interval: 30)
        #expect(r4)
        let r5 = table.seen(hash: Self.phone, at: start + 10, address: "10.0.0.1", interval: 30)
        #expect(!r5)
        let r6 = table.seen(hash: Self.phone, at: start + 11, address: "10.0.0.2", interval: 30)
        #expect(r6)
        let r7 = table.seen(hash: Self.phone, at: start + 41, address: "10.0.0.2", interval: 30)
        #expect(r7)
        let r8 = table.seen(hash: Data([9]), at: start, address: nil, interval: 30)
        #expect(!r8)
    }

    @Test func aWriteToTheDatabaseFilesMakesItStaleAtOnce() {
        var table = DeviceTokenTable(maxAge: .milliseconds(1500))
        let before = DeviceTokenTable.Stamp([1, 2, 3])
        let rows: [Data: DeviceTokenTable.Device] = [Self.phone: .init(id: "phone", scopes: .standard)]
        let installed = table.loaded(rows, generation: table.beginLoad(), startedAt: Self.t0, stamp: before)
        #expect(installed)
        #expect(table.lookup(hash: Self.phone, now: Self.t0, stamp: before) == .device(.init(id: "phone", scopes: .standard)))
        #expect(table.lookup(hash: Self.phone, now: Self.t0, stamp: DeviceTokenTable.Stamp([1, 2, 4])) == .stale)
    }

    // MARK: Over SQLite

    @Test func anotherProcesssRevocationAndScopeChangeCountAtOnce() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let logger = Logger(label: "test")
        let serve = DeviceRegistry(database: try BridgeDatabase(paths: state.paths, logger: logger), logger: logger)
        let phone = try await serve.redeem(
            code: try await serve.mintPairingCode(ttl: .seconds(60)).code, device: DeviceInfo(), address: nil)
        let tablet = try await serve.redeem(
            code: try await serve.mintPairingCode(ttl: .seconds(60)).code, device: DeviceInfo(), address: nil)
        #expect(serve.cachedDevice(deviceToken: phone.deviceToken, address: nil) == .stale)  // never loaded
        try await serve.reloadTokens()
        guard case .device(let found) = serve.cachedDevice(deviceToken: phone.deviceToken, address: nil) else {
            Issue.record("a loaded table knows the phone")
            return
        }
        #expect(found.id == phone.deviceId && found.scopes == .standard)
        #expect(serve.cachedDevice(deviceToken: "not-a-token", address: nil) == .unknown)

        // `codex-bridge devices …` in its own process: its own database connection on the same file.
        let cli = DeviceRegistry(database: try BridgeDatabase(paths: state.paths, logger: logger), logger: logger)
        try await cli.revoke(id: phone.deviceId)
        try await cli.setScopes(id: tablet.deviceId, scopes: Scopes([.observe]))
        // Its writes changed the database's files: the table no longer answers (the check reads the database)…
        #expect(serve.cachedDevice(deviceToken: phone.deviceToken, address: nil) == .stale)
        let tabletNow = serve.cachedDevice(deviceToken: tablet.deviceToken, address: nil)  // a load may have ended since
        if case .device(let device) = tabletNow { #expect(device.scopes == Scopes([.observe])) } else { #expect(tabletNow == .stale) }
        try await serve.reloadTokens()
        // …and once reloaded it answers with the revocation and the new scopes.
        #expect(serve.cachedDevice(deviceToken: phone.deviceToken, address: nil) == .unknown)
        guard case .device(let changed) = serve.cachedDevice(deviceToken: tablet.deviceToken, address: nil) else {
            Issue.record("the tablet is still active")
            return
        }
        #expect(changed.scopes == Scopes([.observe]))
    }

    /// Nothing reloads the table every second any more (issue 45 item 4): a lookup that finds it stale starts a
    /// load itself, so the handshakes after it are answered from memory (before, every handshake read the database
    /// from 1.5 s after the last change on).
    @Test func aStaleTableIsLoadedAgainByTheLookupThatFoundIt() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let logger = Logger(label: "test")
        let serve = DeviceRegistry(database: try BridgeDatabase(paths: state.paths, logger: logger), logger: logger)
        let phone = try await serve.redeem(
            code: try await serve.mintPairingCode(ttl: .seconds(60)).code, device: DeviceInfo(), address: nil)
        let cli = DeviceRegistry(database: try BridgeDatabase(paths: state.paths, logger: logger), logger: logger)
        try await cli.setScopes(id: phone.deviceId, scopes: Scopes([.observe]))
        #expect(serve.cachedDevice(deviceToken: phone.deviceToken, address: nil) == .stale)
        let deadline = ContinuousClock.now + .seconds(10)
        var found = serve.cachedDevice(deviceToken: phone.deviceToken, address: nil)
        while found == .stale, ContinuousClock.now < deadline {
            await Task.yield()
            found = serve.cachedDevice(deviceToken: phone.deviceToken, address: nil)
        }
        guard case .device(let device) = found else {
            Issue.record("the table was not loaded again: \(found)")
            return
        }
        #expect(device.id == phone.deviceId && device.scopes == Scopes([.observe]))
    }

    @Test func aRevocationThroughAnyRegistryOnTheSameDatabaseCountsAtOnce() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let logger = Logger(label: "test")
        let database = try BridgeDatabase(paths: state.paths, logger: logger)
        let serve = DeviceRegistry(database: database, logger: logger)
        let hub = DeviceRegistry(database: database, logger: logger)  // the hub's own registry (device administration)
        let phone = try await serve.redeem(
            code: try await serve.mintPairingCode(ttl: .seconds(60)).code, device: DeviceInfo(), address: nil)
        try await serve.reloadTokens()
        guard case .device = serve.cachedDevice(deviceToken: phone.deviceToken, address: nil) else {
            Issue.record("a loaded table knows the phone")
            return
        }
        try await hub.revoke(id: phone.deviceId)
        let afterRevoke = serve.cachedDevice(deviceToken: phone.deviceToken, address: nil)
        #expect(afterRevoke == .unknown || afterRevoke == .stale)
        try await serve.reloadTokens()
        #expect(serve.cachedDevice(deviceToken: phone.deviceToken, address: nil) == .unknown)
    }
}
