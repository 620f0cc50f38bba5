import BridgeProtocol
import Foundation
import GRDB
import Synchronization

/// The ``DeviceTokenTable`` of one database, shared by every ``DeviceRegistry`` on it (a server's: the CLI's
/// short-lived processes never read it). The registries apply their own writes; ``DeviceRegistry/reloadTokens()``
/// (the server calls it every second) loads what other processes wrote; a write by anyone makes it stale until
/// then (the database files' stamp, checked at every lookup).
public final class DeviceTokens: Sendable {
    private let table: Mutex<DeviceTokenTable>
    /// A load asked for by a lookup that found the table stale is under way (one at a time).
    private let reloading = Atomic<Bool>(false)
    /// The database file and its WAL, whose ``DeviceTokenTable/Stamp`` tells another process's write.
    private let files: [String]

    public init(databaseFile: URL? = nil, maxAge: Duration = .milliseconds(1500)) {
        self.table = Mutex(DeviceTokenTable(maxAge: maxAge))
        self.files = databaseFile.map { [$0.path, $0.path + "-wal"] } ?? []
    }

    /// The database files as they are now (two `stat` calls).
    func stamp() -> DeviceTokenTable.Stamp {
        var values: [Int] = []
        for path in files {
            var info = stat()
            guard stat(path, &info) == 0 else {
                values += [-1]
                continue
            }
            values += [Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_size), Int(info.st_ino)]
        }
        return DeviceTokenTable.Stamp(values)
    }

    /// What the table says about `token` now (hashed first; never stored or logged).
    public func lookup(token: String, now: ContinuousClock.Instant = .now) -> DeviceTokenTable.Lookup {
        let hash = DeviceRegistry.hash(token: token)
        let stamp = stamp()
        return table.withLock { $0.lookup(hash: hash, now: now, stamp: stamp) }
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

    /// Claims the one load a stale lookup may start; false while another runs. Pair with ``reloadEnded()``.
    func claimReload() -> Bool {
        reloading.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    func reloadEnded() {
        reloading.store(false, ordering: .releasing)
    }

    func invalidate() {
        table.withLock { $0.invalidate() }
    }

    func beginLoad() -> UInt64 { table.withLock { $0.beginLoad() } }

    func loaded(
        _ rows: [Data: DeviceTokenTable.Device], generation: UInt64, startedAt: ContinuousClock.Instant, stamp: DeviceTokenTable.Stamp
    ) -> Bool {
        table.withLock { $0.loaded(rows, generation: generation, startedAt: startedAt, stamp: stamp) }
    }
}

extension DeviceRegistry {
    /// Loads every active device into ``tokens`` (one read); retried once when a change of this process's came in
    /// between. A server calls it every second, so the table stays within its freshness bound.
    public func reloadTokens() async throws {
        for _ in 0..<2 {
            let generation = tokens.beginLoad()
            let stamp = tokens.stamp()
            let startedAt = ContinuousClock.now
            // `[Row]` is not Sendable, so this is GRDB's synchronous read (one short query), as it always was.
            let rows = try database.pool.read { db in
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
            if tokens.loaded(byHash, generation: generation, startedAt: startedAt, stamp: stamp) { return }
        }
    }

    /// The device of `deviceToken` per the in-memory table, when the table is fresh: `.device` (its last use is
    /// recorded off the caller's path), `.unknown`, or `.stale` (ask ``authenticate(deviceToken:address:)``).
    ///
    /// A stale table is loaded again off the caller's path (one load at a time), so the handshakes after it are
    /// answered from memory again: the table is no longer reloaded every second (serve's watchers wait for a
    /// change, issue 45 item 4), and without this every handshake 1.5 s after the last change read the database.
    public func cachedDevice(deviceToken: String, address: String?) -> DeviceTokenTable.Lookup {
        let found = tokens.lookup(token: deviceToken)
        if case .stale = found, tokens.claimReload() {
            let tokens = self.tokens
            Task {
                defer { tokens.reloadEnded() }
                try? await self.reloadTokens()
            }
        }
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
