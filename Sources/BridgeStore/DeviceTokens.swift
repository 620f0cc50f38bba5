import BridgeProtocol
import Foundation
import GRDB
import Synchronization

/// A ``DeviceTokenTable`` shared by the copies of one ``DeviceRegistry`` (a server's: the CLI's short-lived
/// processes never read it). The registry applies its own writes; ``DeviceRegistry/reloadTokens()`` (the server
/// calls it every second) loads what other processes wrote.
public final class DeviceTokens: Sendable {
    private let table: Mutex<DeviceTokenTable>

    public init(maxAge: Duration = .milliseconds(1500)) {
        self.table = Mutex(DeviceTokenTable(maxAge: maxAge))
    }

    /// What the table says about `token` now (hashed first; never stored or logged).
    public func lookup(token: String, now: ContinuousClock.Instant = .now) -> DeviceTokenTable.Lookup {
        let hash = DeviceRegistry.hash(token: token)
        return table.withLock { $0.lookup(hash: hash, now: now) }
    }

    /// Records that `token`'s device authenticated; true when the registry is to write it (see
    /// ``DeviceTokenTable/seen(hash:at:address:interval:)``).
    func seen(token: String, at date: Date, address: String?) -> Bool {
        let hash = DeviceRegistry.hash(token: token)
        return table.withLock { $0.seen(hash: hash, at: date, address: address, interval: DeviceRegistry.lastSeenWriteInterval) }
    }

    func apply(_ record: DeviceRecord) {
        let device =
            record.isRevoked
            ? nil
            : DeviceTokenTable.Device(
                id: record.id, scopes: record.scopes, lastSeenAt: record.lastSeenAt, lastAddress: record.lastAddress)
        table.withLock { $0.apply(hash: record.tokenHash, device: device, id: record.id) }
    }

    func invalidate() {
        table.withLock { $0.invalidate() }
    }

    func beginLoad() -> UInt64 { table.withLock { $0.beginLoad() } }

    func loaded(_ rows: [Data: DeviceTokenTable.Device], generation: UInt64, startedAt: ContinuousClock.Instant) -> Bool {
        table.withLock { $0.loaded(rows, generation: generation, startedAt: startedAt) }
    }
}

extension DeviceRegistry {
    /// Loads every active device into ``tokens`` (one read); retried once when a change of this process's came in
    /// between. A server calls it every second, so the table stays within its freshness bound.
    public func reloadTokens() async throws {
        for _ in 0..<2 {
            let generation = tokens.beginLoad()
            let startedAt = ContinuousClock.now
            let rows = try await database.pool.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT id, tokenHash, scopes, lastSeenAt, lastAddress FROM device WHERE revokedAt IS NULL")
            }
            var byHash: [Data: DeviceTokenTable.Device] = [:]
            for row in rows {
                let hash: Data = row["tokenHash"]
                byHash[hash] = DeviceTokenTable.Device(
                    id: row["id"], scopes: Scopes(stored: row["scopes"] ?? ""), lastSeenAt: row["lastSeenAt"],
                    lastAddress: row["lastAddress"])
            }
            if tokens.loaded(byHash, generation: generation, startedAt: startedAt) { return }
        }
    }

    /// The device of `deviceToken` per the in-memory table, when the table is fresh: `.device` (its last use is
    /// recorded off the caller's path), `.unknown`, or `.stale` (ask ``authenticate(deviceToken:address:)``).
    public func cachedDevice(deviceToken: String, address: String?) -> DeviceTokenTable.Lookup {
        let found = tokens.lookup(token: deviceToken)
        guard case .device(let device) = found else { return found }
        let at = now()
        if tokens.seen(token: deviceToken, at: at, address: address) {
            let database = self.database
            let address = address ?? device.lastAddress
            Task {
                try? await database.pool.write { db in
                    try db.execute(
                        sql: "UPDATE device SET lastSeenAt = ?, lastAddress = ? WHERE id = ? AND revokedAt IS NULL",
                        arguments: [at, address, device.id])
                }
            }
        }
        return found
    }
}
