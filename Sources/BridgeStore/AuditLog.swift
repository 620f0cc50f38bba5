import BridgeProtocol
import Foundation
import GRDB

/// Who did what, in the bridge database: every state-changing request (and every refused one), pairings,
/// confirmations, scope changes and revocations, approvals from notifications and from the desk's TUI.
///
/// Written by `serve` and by the CLI (`devices …`, `pair`), read by `codex-bridge audit` and the `listAudit`
/// request. Kept as long as the journal keeps events (`--journal-max-age`).
///
/// A client cannot flush it: alike refusals (same device, actor, kind and outcome) within ``Limits/window`` share
/// one row with a count, a device (or the shared secret) starts at most ``Limits/refusalRowsPerWindow`` refusal
/// rows a window (the rest share one ``limitedKind`` row), and only refusals are pruned by count
/// (``Limits/maxRefusals``); pairings, scope changes, revocations and allowed state changes go only with age.
public struct AuditLog: Sendable {
    /// How refusals are counted and kept.
    public struct Limits: Sendable {
        /// Seconds: an alike refusal joins a row that started less than this long ago; also the rate limit's span.
        public var window: TimeInterval
        /// Refusal rows one device (or the shared secret) may start within a window.
        public var refusalRowsPerWindow: Int
        /// Refusal rows kept; the oldest are pruned first. Other rows are pruned only by age.
        public var maxRefusals: Int

        public init(window: TimeInterval = 60, refusalRowsPerWindow: Int = 20, maxRefusals: Int = 100_000) {
            self.window = window
            self.refusalRowsPerWindow = refusalRowsPerWindow
            self.maxRefusals = maxRefusals
        }
    }

    /// The kind of the row that counts a device's refusals beyond its rows for the window, of any kind.
    public static let limitedKind = "refusals"
    /// That row's outcome.
    public static let limitedOutcome = "rate_limited"
    /// Pairing events: never coalesced nor pruned by count, whatever their outcome (one per pairing code).
    static let pairingKinds = ["pair", "pairingRequested", "pairingExpired", "pairingAbandoned"]
    /// The SQL condition for a refusal row (see ``isRefusal(_:)``).
    static let refusalCondition = "outcome != 'ok' AND kind NOT IN (\(pairingKinds.map { "'\($0)'" }.joined(separator: ", ")))"

    private let database: BridgeDatabase
    private let now: @Sendable () -> Date
    private let limits: Limits

    public init(database: BridgeDatabase, now: @escaping @Sendable () -> Date = Date.init, limits: Limits = Limits()) {
        self.database = database
        self.now = now
        self.limits = limits
    }

    /// The current time as audit entries hold it (Unix seconds).
    public var timestamp: Double { now().timeIntervalSince1970 }

    /// Whether `entry` is a refusal: anything but `ok`, pairing events aside.
    static func isRefusal(_ entry: AuditEntry) -> Bool {
        entry.outcome != "ok" && !pairingKinds.contains(entry.kind)
    }

    /// Appends one entry (its `id` is assigned; `at` 0 means now); a refusal may instead be counted in a row
    /// that stands for alike ones (see the type's documentation).
    public func record(_ entry: AuditEntry) async throws {
        try await record(entry, keeping: nil)
    }

    /// Appends `entry` (when given) and keeps a request's `answer` for its retries (when given) in one transaction:
    /// a state-changing request leaves both or neither.
    public func record(_ entry: AuditEntry?, keeping answer: ClientMemory.AnswerRow?) async throws {
        let at = timestamp
        var stamped = entry
        if stamped?.at == 0 { stamped?.at = at }
        let entry = stamped
        let limits = self.limits
        try await database.pool.write { db in
            try answer?.insert(at: at, db)
            if let entry { try Self.insert(entry, limits: limits, db) }
        }
    }

    /// Inserts `entry`, or counts it in a row that stands for alike refusals.
    private static func insert(_ entry: AuditEntry, limits: Limits, _ db: Database) throws {
        guard Self.isRefusal(entry) else { return try InsertedEntry(entry).insert(db) }
        let since = entry.at - limits.window
        if try Self.count(entry, since: since, db) { return }
        let started =
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM audit WHERE deviceId IS ? AND actor = ? AND at >= ? AND \(Self.refusalCondition)",
                arguments: [entry.deviceId, entry.actor.rawValue, since]) ?? 0
        if started < limits.refusalRowsPerWindow { return try InsertedEntry(entry).insert(db) }
        var limited = entry
        limited.kind = Self.limitedKind
        limited.outcome = Self.limitedOutcome
        limited.threadId = nil
        limited.detail = "refusals of any kind beyond \(limits.refusalRowsPerWindow) rows in \(Int(limits.window)) s"
        if try Self.count(limited, since: since, db) { return }
        try InsertedEntry(limited).insert(db)
    }

    /// Counts `entry` in the latest alike row that started at `since` or later; false when there is none.
    private static func count(_ entry: AuditEntry, since: Double, _ db: Database) throws -> Bool {
        let row = InsertedEntry(entry)
        try db.execute(
            sql: """
                UPDATE audit SET count = count + 1, lastAt = ? WHERE id = (
                    SELECT id FROM audit WHERE deviceId IS ? AND actor = ? AND kind = ? AND outcome = ? AND at >= ?
                    AND behalfDeviceId IS ? ORDER BY id DESC LIMIT 1)
                """,
            arguments: [entry.at, entry.deviceId, entry.actor.rawValue, row.kind, row.outcome, since, entry.onBehalfOf?.deviceId])
        return db.changesCount > 0
    }

    /// Entries, newest first: of one device, since a time, at most `limit`.
    public func entries(deviceId: String? = nil, since: Double? = nil, limit: Int = 100) async throws -> [AuditEntry] {
        try await database.pool.read { db in
            var sql = """
                SELECT a.id, a.at, a.actor, a.deviceId, COALESCE(a.deviceName, d.name) AS deviceName, a.address, a.kind,
                       a.threadId, a.outcome, a.detail, a.count, a.lastAt,
                       a.behalfActor, a.behalfDeviceId, a.behalfName
                FROM audit a LEFT JOIN device d ON d.id = a.deviceId
                """
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if let deviceId {
                conditions.append("a.deviceId = ?")
                arguments += [deviceId]
            }
            if let since {
                conditions.append("COALESCE(a.lastAt, a.at) >= ?")
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

    /// Deletes entries older than `maxAge` seconds, and the oldest refusals beyond ``Limits/maxRefusals``.
    public func prune(maxAge: TimeInterval) async throws {
        let cutoff = timestamp - maxAge
        let maxRefusals = limits.maxRefusals
        try await database.pool.write { db in
            try db.execute(sql: "DELETE FROM audit WHERE COALESCE(lastAt, at) < ?", arguments: [cutoff])
            try db.execute(
                sql: """
                    DELETE FROM audit WHERE id IN (
                        SELECT id FROM audit WHERE \(Self.refusalCondition) ORDER BY id DESC LIMIT -1 OFFSET ?)
                    """,
                arguments: [maxRefusals])
        }
    }

    private static func entry(_ row: Row) -> AuditEntry {
        AuditEntry(
            id: row["id"], at: row["at"], actor: AuditActor(rawValue: row["actor"] ?? "") ?? .bridge, deviceId: row["deviceId"],
            deviceName: row["deviceName"], address: row["address"], kind: row["kind"], threadId: row["threadId"], outcome: row["outcome"],
            detail: row["detail"], count: row["count"] ?? 1, lastAt: row["lastAt"],
            onBehalfOf: (row["behalfActor"] as String?).flatMap(AuditActor.init(rawValue:)).map {
                OnBehalfOf(actor: $0, deviceId: row["behalfDeviceId"], name: row["behalfName"])
            })
    }

    /// One row to insert, its texts cut to their stored lengths.
    private struct InsertedEntry: PersistableRecord {
        static let databaseTableName = "audit"
        let entry: AuditEntry
        init(_ entry: AuditEntry) { self.entry = entry }

        var kind: String { String(entry.kind.prefix(64)) }
        var outcome: String { String(entry.outcome.prefix(64)) }

        func encode(to container: inout PersistenceContainer) {
            container["at"] = entry.at
            container["actor"] = entry.actor.rawValue
            container["deviceId"] = entry.deviceId
            container["deviceName"] = entry.deviceName.map { String($0.prefix(100)) }
            container["address"] = entry.address
            container["kind"] = kind
            container["threadId"] = entry.threadId.map { String($0.prefix(256)) }
            container["outcome"] = outcome
            container["detail"] = entry.detail.map { String($0.prefix(300)) }
            container["behalfActor"] = entry.onBehalfOf?.actor.rawValue
            container["behalfDeviceId"] = entry.onBehalfOf?.deviceId.map { String($0.prefix(OnBehalfOf.maxDeviceIdBytes)) }
            container["behalfName"] = entry.onBehalfOf?.name.map { String($0.prefix(OnBehalfOf.maxNameBytes)) }
        }
    }
}
