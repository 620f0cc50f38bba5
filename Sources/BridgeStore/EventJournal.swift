import Foundation
import GRDB
import GRDBSQLite
import Logging

/// One journaled server message (`event`, `approvalRequest`, `approvalResolved`).
public struct JournalEntry: Sendable, Hashable {
    /// Bridge-wide, increasing by one per journaled message; never reused, also across restarts.
    public var seq: Int64
    public var threadId: String
    /// The wire kind: `event`, `approvalRequest` or `approvalResolved`.
    public var kind: String
    /// The event type (`turn/started`, …) for events.
    public var type: String?
    public var turnId: String?
    public var approvalId: String?
    /// The exact JSON frame sent to clients.
    public var text: String
    public var createdAt: Date
    /// For a message relayed from a linked machine: that machine's id and the message's seq there.
    public var machine: String?
    public var remoteSeq: Int64?

    public init(
        seq: Int64, threadId: String, kind: String, type: String? = nil, turnId: String? = nil, approvalId: String? = nil,
        text: String, createdAt: Date = Date(), machine: String? = nil, remoteSeq: Int64? = nil
    ) {
        self.machine = machine
        self.remoteSeq = remoteSeq
        self.seq = seq
        self.threadId = threadId
        self.kind = kind
        self.type = type
        self.turnId = turnId
        self.approvalId = approvalId
        self.text = text
        self.createdAt = createdAt
    }
}

/// What one pruning pass removed.
public struct JournalPruneResult: Sendable, Hashable {
    /// Rows deleted.
    public var deleted: Int
    /// Every seq at or below this one is gone (0 when nothing was ever pruned).
    public var prunedThrough: Int64
}

/// The event journal in the ``BridgeDatabase``: every numbered message is written here before it is sent, so
/// a client can resume after a disconnect and nothing survives only in memory.
///
/// Appends are synchronous single-row transactions (WAL, `synchronous = NORMAL`: a commit survives a crash of
/// the process, kill -9 included; only an OS crash or power loss may lose the last commits). Reads and pruning
/// are async. Retention keeps a prefix-free suffix: pruning deletes every row at or below a cut and records the
/// cut as `prunedThrough`, so "was anything after my cursor pruned?" is one comparison.
public struct EventJournal: Sendable {
    let database: BridgeDatabase
    private let now: @Sendable () -> Date
    private let logger: Logger

    /// Rows deleted per transaction when pruning, so the writer (the hub) never waits long for the lock.
    static let pruneChunk = 5000

    public init(database: BridgeDatabase, now: @escaping @Sendable () -> Date = Date.init, logger: Logger) {
        self.database = database
        self.now = now
        self.logger = logger
    }

    // MARK: Writing

    /// Writes one entry (synchronously, one transaction). Throws if `seq` is already journaled.
    public func append(_ entry: JournalEntry) throws {
        try append(contentsOf: [entry])
    }

    /// Writes entries in one transaction. The relay's hot path: values are bound through SQLite's C API on
    /// GRDB's cached statements (GRDB's `StatementArguments` boxing cost as much as the insert itself), and
    /// ``rowsPerInsert`` rows go in per statement (one statement run per row cost as much as the row itself).
    public func append(contentsOf entries: [JournalEntry]) throws {
        guard !entries.isEmpty else { return }
        // Bound from the array's buffer: an entry read from the array itself was a copy (a retain and a release of
        // each of its strings).
        try entries.withUnsafeBufferPointer { entries in try append(entries) }
    }

    private func append(_ entries: UnsafeBufferPointer<JournalEntry>) throws {
        try database.pool.write { db in
            var start = 0
            while start < entries.count {
                let rows = entries.count - start >= Self.rowsPerInsert ? Self.rowsPerInsert : 1
                let statement = try db.cachedStatement(sql: rows == 1 ? Self.insertOne : Self.insertMany)
                let handle = statement.sqliteStatement
                sqlite3_reset(handle)
                for row in 0..<rows {
                    Self.bind(entries[start + row], handle, offset: Int32(row * Self.columns))
                }
                let code = sqlite3_step(handle)
                sqlite3_reset(handle)
                sqlite3_clear_bindings(handle)
                guard code == SQLITE_DONE else {
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
                }
                start += rows
            }
        }
    }

    /// Rows written by one INSERT statement when at least that many are waiting.
    static let rowsPerInsert = 32
    private static let columns = 11
    private static let insertHead =
        "INSERT INTO journal (seq, threadId, kind, type, turnId, approvalId, text, bytes, createdAt, machine, remoteSeq) VALUES "
    private static let insertRow = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    private static let insertOne = insertHead + insertRow
    private static let insertMany = insertHead + Array(repeating: insertRow, count: rowsPerInsert).joined(separator: ", ")

    /// Binds one entry's columns at parameters `offset + 1 ... offset + 11`.
    private static func bind(_ entry: JournalEntry, _ handle: OpaquePointer, offset: Int32) {
        sqlite3_bind_int64(handle, offset + 1, entry.seq)
        bind(entry.threadId, handle, offset + 2)
        bind(entry.kind, handle, offset + 3)
        bind(entry.type, handle, offset + 4)
        bind(entry.turnId, handle, offset + 5)
        bind(entry.approvalId, handle, offset + 6)
        bind(entry.text, handle, offset + 7)
        sqlite3_bind_int64(handle, offset + 8, Int64(entry.text.utf8.count))
        sqlite3_bind_double(handle, offset + 9, entry.createdAt.timeIntervalSince1970)
        bind(entry.machine, handle, offset + 10)
        if let remoteSeq = entry.remoteSeq {
            sqlite3_bind_int64(handle, offset + 11, remoteSeq)
        } else {
            sqlite3_bind_null(handle, offset + 11)
        }
    }

    /// SQLite copies the text (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    private static func bind(_ text: String?, _ handle: OpaquePointer, _ index: Int32) {
        guard let text else {
            sqlite3_bind_null(handle, index)
            return
        }
        // A native string's bytes in place, without the copy of the string `withUTF8` needs (it may mutate).
        if text.utf8.withContiguousStorageIfAvailable({ bind($0, handle, index) }) == nil {
            var text = text
            text.withUTF8 { bind($0, handle, index) }
        }
    }

    private static func bind(_ bytes: UnsafeBufferPointer<UInt8>, _ handle: OpaquePointer, _ index: Int32) {
        bytes.withMemoryRebound(to: CChar.self) { chars in
            if let base = chars.baseAddress, !chars.isEmpty {
                _ = sqlite3_bind_text(handle, index, base, Int32(chars.count), transient)
            } else {
                _ = sqlite3_bind_text(handle, index, "", 0, transient)  // a NULL pointer would bind NULL
            }
        }
    }

    // MARK: Reading

    /// The highest seq ever journaled (0 for a new journal), also when pruning emptied the table.
    public func lastSeq() throws -> Int64 {
        try database.pool.read { db in
            let maxSeq = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM journal") ?? 0
            return max(maxSeq, try Self.prunedThrough(db))
        }
    }

    /// Every seq at or below this one was pruned (0 when nothing was).
    public func prunedThrough() throws -> Int64 {
        try database.pool.read { db in try Self.prunedThrough(db) }
    }

    /// Frames with `after < seq <= through`, of `threads` (nil: every thread), in seq order, at most `limit`: what
    /// a replay sends. `relayed: false` leaves out the messages relayed from linked machines (a session that did
    /// not ask for the fleet never gets them).
    public func readFrames(after: Int64, through: Int64 = .max, threads: Set<String>? = nil, relayed: Bool = true, limit: Int)
        async throws -> [(seq: Int64, text: String)]
    {
        guard let (sql, arguments) = Self.pageQuery(after: after, through: through, threads: threads, relayed: relayed, limit: limit)
        else {
            return []
        }
        return try await database.pool.read { db in
            var frames: [(seq: Int64, text: String)] = []
            frames.reserveCapacity(limit)
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try rows.next() {
                frames.append((seq: row[0], text: row[1]))
            }
            return frames
        }
    }

    /// One page in seq order. The thread filter is applied while walking the primary key (`+threadId` keeps
    /// SQLite off the thread index, which would read every row of the thread and sort them for each page): a
    /// whole replay reads each row of its range once. Nil when `threads` is empty (nothing matches).
    private static func pageQuery(after: Int64, through: Int64, threads: Set<String>?, relayed: Bool, limit: Int) -> (
        String, StatementArguments
    )? {
        var sql = "SELECT seq, text FROM journal WHERE seq > ? AND seq <= ?"
        if !relayed { sql += " AND machine IS NULL" }
        var arguments: StatementArguments = [after, through]
        if let threads {
            guard !threads.isEmpty else { return nil }
            sql += " AND +threadId IN (\(Array(repeating: "?", count: threads.count).joined(separator: ",")))"
            arguments += StatementArguments(threads.sorted())
        }
        sql += " ORDER BY seq LIMIT ?"
        arguments += [limit]
        return (sql, arguments)
    }

    /// Turns with a `turn/started` and no later `turn/completed` or `bridge/turnFailed`: they were running when
    /// the bridge stopped. `(threadId, turnId)` in seq order.
    public func openTurns() throws -> [(threadId: String, turnId: String)] {
        try database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT s.threadId, s.turnId FROM journal s
                    WHERE s.type = 'turn/started' AND s.turnId IS NOT NULL AND s.machine IS NULL AND NOT EXISTS (
                        SELECT 1 FROM journal e WHERE e.threadId = s.threadId AND e.turnId = s.turnId AND e.seq > s.seq
                        AND e.type IN ('turn/completed', 'bridge/turnFailed'))
                    ORDER BY s.seq
                    """
            ).map { (threadId: $0["threadId"], turnId: $0["turnId"]) }
        }
    }

    /// The condition on `kind` of the frames ``requestFrames(of:limit:)`` reads (the partial index's, word for word:
    /// SQLite uses the index only for a query that repeats it). `OR` of `=`, not `IN`: SQLite checks the condition
    /// on every row appended, and builds an `IN` list of more than two values as a temporary table each time.
    static let requestKinds =
        "(kind = 'approvalRequest' OR kind = 'approvalResolved' OR kind = 'inputRequest' OR kind = 'inputResolved')"

    /// The condition of the voice transcript index (``voiceFrames(of:limit:)`` repeats it word for word).
    static let voiceType = "type = 'bridge/voiceTranscript'"

    /// The newest `limit` voice transcript frames of `threadId` (`bridge/voiceTranscript` events), oldest first.
    /// Beside each: the `item/started` frame of the first item the thread started after it, within
    /// ``nextItemWindow`` rows, so a reader can put the part where it was said (its event names no turn).
    public func voiceFrames(of threadId: String, limit: Int) async throws -> [(text: String, nextItem: String?)] {
        try await database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT text, (
                        SELECT i.text FROM journal i WHERE i.seq > journal.seq AND i.seq <= journal.seq + ?
                        AND i.threadId = journal.threadId AND i.type = 'item/started' ORDER BY i.seq LIMIT 1) AS nextItem
                    FROM journal WHERE threadId = ? AND \(Self.voiceType) ORDER BY seq DESC LIMIT ?
                    """,
                arguments: [Self.nextItemWindow, threadId, limit]
            ).reversed().map { (text: $0["text"], nextItem: $0["nextItem"]) }
        }
    }

    /// How far past a request ``requestFrames(of:limit:)`` looks for the next item of its turn (journal rows).
    static let nextItemWindow = 1000

    /// The newest `limit` approval and question frames of `threadId` (requests and their answers), oldest first.
    /// Beside a request (not an answer): the `item/started` frame of the first item its turn started after it,
    /// within ``nextItemWindow`` rows, so a reader can put the request where it came (a question's tool call is no
    /// item of the thread to put it after).
    public func requestFrames(of threadId: String, limit: Int) async throws -> [(text: String, nextItem: String?)] {
        try await database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT text, CASE WHEN kind IN ('approvalRequest', 'inputRequest') AND turnId IS NOT NULL THEN (
                        SELECT i.text FROM journal i WHERE i.seq > journal.seq AND i.seq <= journal.seq + ?
                        AND i.threadId = journal.threadId AND i.turnId = journal.turnId AND i.type = 'item/started'
                        ORDER BY i.seq LIMIT 1) END AS nextItem
                    FROM journal WHERE threadId = ? AND \(Self.requestKinds) ORDER BY seq DESC LIMIT ?
                    """,
                arguments: [Self.nextItemWindow, threadId, limit]
            ).reversed().map { (text: $0["text"], nextItem: $0["nextItem"]) }
        }
    }

    /// Approvals requested and never resolved: `(threadId, approvalId)` in seq order.
    public func openApprovals() throws -> [(threadId: String, approvalId: String)] {
        try database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT r.threadId, r.approvalId FROM journal r
                    WHERE r.kind = 'approvalRequest' AND r.approvalId IS NOT NULL AND r.machine IS NULL AND NOT EXISTS (
                        SELECT 1 FROM journal e WHERE e.approvalId = r.approvalId AND e.kind = 'approvalResolved')
                    ORDER BY r.seq
                    """
            ).map { (threadId: $0["threadId"], approvalId: $0["approvalId"]) }
        }
    }

    /// Messages of kind `opened` (an `inputRequest`, a `messageQueued`; their key is in the `approvalId` column)
    /// with no later message of kind `closed` for the same key: `(threadId, key)` in seq order.
    public func openEntries(opened: String, closed: String) throws -> [(threadId: String, key: String)] {
        try database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT r.threadId, r.approvalId FROM journal r
                    WHERE r.kind = ? AND r.approvalId IS NOT NULL AND r.machine IS NULL AND NOT EXISTS (
                        SELECT 1 FROM journal e WHERE e.approvalId = r.approvalId AND e.kind = ?)
                    ORDER BY r.seq
                    """, arguments: [opened, closed]
            ).map { (threadId: $0["threadId"], key: $0["approvalId"]) }
        }
    }

    /// The highest seq relayed from `machine` (its link's resume cursor), nil when none was.
    public func relayCursor(machine: String) throws -> Int64? {
        try database.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(remoteSeq) FROM journal WHERE machine = ?", arguments: [machine])
        }
    }

    // MARK: Retention

    /// Deletes entries older than `maxAge` and the oldest entries beyond `maxBytes` in total, always a prefix
    /// of the journal, in chunks.
    @discardableResult
    public func prune(maxAge: TimeInterval, maxBytes: Int64) async throws -> JournalPruneResult {
        let cutoff = now().addingTimeInterval(-maxAge).timeIntervalSince1970
        let cut: Int64 = try await database.pool.read { db in
            // The prefix written before the cutoff: walk from the oldest row to the first one that is recent
            // enough (no index on createdAt: one less B-tree to update on every append).
            let byAge: Int64
            if let firstKept = try Int64.fetchOne(
                db, sql: "SELECT seq FROM journal WHERE createdAt >= ? ORDER BY seq LIMIT 1", arguments: [cutoff])
            {
                byAge = firstKept - 1
            } else {
                byAge = try Int64.fetchOne(db, sql: "SELECT MAX(seq) FROM journal") ?? 0
            }
            let total = try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(bytes), 0) FROM journal") ?? 0
            var bySize: Int64 = 0
            if total > maxBytes {
                bySize =
                    try Int64.fetchOne(
                        db,
                        sql: """
                            SELECT seq FROM (SELECT seq, SUM(bytes) OVER (ORDER BY seq DESC ROWS UNBOUNDED PRECEDING) AS kept
                                             FROM journal)
                            WHERE kept > ? ORDER BY seq DESC LIMIT 1
                            """, arguments: [maxBytes]) ?? 0
            }
            return max(byAge, bySize)
        }
        var deleted = 0
        var through: Int64 = 0
        while true {
            let (count, recorded) = try await database.pool.write { db -> (Int, Int64) in
                let previous = try Self.prunedThrough(db)
                guard cut > previous else { return (0, previous) }
                let chunkEnd =
                    try Int64.fetchOne(
                        db, sql: "SELECT seq FROM journal WHERE seq <= ? ORDER BY seq LIMIT 1 OFFSET ?",
                        arguments: [cut, Self.pruneChunk - 1]) ?? cut
                try db.execute(sql: "DELETE FROM journal WHERE seq <= ?", arguments: [chunkEnd])
                let count = db.changesCount
                try db.execute(
                    sql:
                        "INSERT INTO journalMeta (key, value) VALUES ('prunedThrough', ?) ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)",
                    arguments: [chunkEnd])
                return (count, chunkEnd)
            }
            deleted += count
            through = recorded
            if recorded >= cut || count == 0 { break }
        }
        if deleted > 0 {
            logger.debug(
                "journal pruned", metadata: ["bridge.journal.deleted": "\(deleted)", "bridge.journal.prunedThrough": "\(through)"])
        }
        return JournalPruneResult(deleted: deleted, prunedThrough: through)
    }

    static func prunedThrough(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM journalMeta WHERE key = 'prunedThrough'") ?? 0
    }
}
