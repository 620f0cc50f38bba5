import BridgeProtocol
import Foundation
import GRDB

/// Who did what, in the bridge database: every state-changing request (and every refused one), pairings,
/// confirmations, scope changes and revocations, approvals from notifications and from the desk's TUI.
///
/// Written by `serve` and by the CLI (`devices …`, `pair`), read by `codex-bridge audit` and the `listAudit`
/// request. Kept as long as the journal keeps events (`--journal-max-age`), and at most ``maxEntries``.
public struct AuditLog: Sendable {
    /// The most entries kept; older ones are pruned first.
    public static let maxEntries = 100_000

    private let database: BridgeDatabase
    private let now: @Sendable () -> Date

    public init(database: BridgeDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.now = now
    }

    /// The current time as audit entries hold it (Unix seconds).
    public var timestamp: Double { now().timeIntervalSince1970 }

    /// Appends one entry (its `id` is assigned; `at` 0 means now).
    public func record(_ entry: AuditEntry) async throws {
        var entry = entry
        if entry.at == 0 { entry.at = timestamp }
        let row = InsertedEntry(entry)
        try await database.pool.write { db in try row.insert(db) }
    }

    /// Entries, newest first: of one device, since a time, at most `limit`.
    public func entries(deviceId: String? = nil, since: Double? = nil, limit: Int = 100) async throws -> [AuditEntry] {
        try await database.pool.read { db in
            var sql = """
                SELECT a.id, a.at, a.actor, a.deviceId, COALESCE(a.deviceName, d.name) AS deviceName, a.address, a.kind,
                       a.threadId, a.outcome, a.detail
                FROM audit a LEFT JOIN device d ON d.id = a.deviceId
                """
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if let deviceId {
                conditions.append("a.deviceId = ?")
                arguments += [deviceId]
            }
            if let since {
                conditions.append("a.at >= ?")
                arguments += [since]
            }
            if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
            sql += " ORDER BY a.id DESC LIMIT ?"
            arguments += [max(1, limit)]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.entry)
        }
    }

    /// The latest `limit` entries of each device in `ids`, newest first.
    public func recent(of ids: [String], limit: Int) async throws -> [String: [AuditEntry]] {
        var result: [String: [AuditEntry]] = [:]
        for id in ids {
            result[id] = try await entries(deviceId: id, limit: limit)
        }
        return result
    }

    /// Deletes entries older than `maxAge` seconds, and the oldest beyond ``maxEntries``.
    public func prune(maxAge: TimeInterval) async throws {
        let cutoff = timestamp - maxAge
        try await database.pool.write { db in
            try db.execute(sql: "DELETE FROM audit WHERE at < ?", arguments: [cutoff])
            try db.execute(
                sql: "DELETE FROM audit WHERE id <= (SELECT id FROM audit ORDER BY id DESC LIMIT 1 OFFSET ?)",
                arguments: [Self.maxEntries])
        }
    }

    private static func entry(_ row: Row) -> AuditEntry {
        AuditEntry(
            id: row["id"], at: row["at"], actor: AuditActor(rawValue: row["actor"] ?? "") ?? .bridge, deviceId: row["deviceId"],
            deviceName: row["deviceName"], address: row["address"], kind: row["kind"], threadId: row["threadId"], outcome: row["outcome"],
            detail: row["detail"])
    }

    /// One row to insert.
    private struct InsertedEntry: PersistableRecord {
        static let databaseTableName = "audit"
        let entry: AuditEntry
        init(_ entry: AuditEntry) { self.entry = entry }

        func encode(to container: inout PersistenceContainer) {
            container["at"] = entry.at
            container["actor"] = entry.actor.rawValue
            container["deviceId"] = entry.deviceId
            container["deviceName"] = entry.deviceName.map { String($0.prefix(100)) }
            container["address"] = entry.address
            container["kind"] = String(entry.kind.prefix(64))
            container["threadId"] = entry.threadId.map { String($0.prefix(256)) }
            container["outcome"] = String(entry.outcome.prefix(64))
            container["detail"] = entry.detail.map { String($0.prefix(300)) }
        }
    }
}
