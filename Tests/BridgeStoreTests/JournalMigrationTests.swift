import Foundation
import GRDB
import Testing

@testable import BridgeStore

@Suite("Journal schema upgrade")
struct JournalMigrationTests {
    /// A database written by the previous schema (v1 + v2) is upgraded in place when the bridge opens it: the
    /// rows stay, the journal's indexes become the lean ones, and the startup queries still find what was open.
    @Test func v2DatabaseUpgradesInPlace() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        do {
            let pool = try state.database(before: "v3-journal-lean-indexes")
            try await pool.write { db in
                let rows: [(Int64, String, String?, String?, String?)] = [
                    (1, "event", "turn/started", "u1", nil), (2, "event", "turn/completed", "u1", nil),
                    (3, "event", "turn/started", "u2", nil), (4, "approvalRequest", nil, "u2", "ap-1"),
                ]
                for (seq, kind, type, turn, approval) in rows {
                    try db.execute(
                        sql:
                            "INSERT INTO journal (seq, threadId, kind, type, turnId, approvalId, text, bytes, createdAt) VALUES (?, 't', ?, ?, ?, ?, '{}', 2, 0)",
                        arguments: [seq, kind, type, turn, approval])
                }
            }
            try pool.close()
        }
        let logger = CapturedLogs().logger
        let database = try BridgeDatabase(paths: state.paths, logger: logger)
        let journal = EventJournal(database: database, logger: logger)
        #expect(try journal.lastSeq() == 4)
        #expect(try journal.openTurns().map(\.turnId) == ["u2"])
        #expect(try journal.openApprovals().map(\.approvalId) == ["ap-1"])
        let indexes = try await database.pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'journal' AND sql IS NOT NULL ORDER BY name")
        }
        // v3 keeps only the indexes the startup queries need; the fleet's relayed rows, readThread's approvals and
        // questions, and its voice transcript add one each.
        #expect(
            indexes == [
                "journal_approval_resolved", "journal_relayed", "journal_thread_requests", "journal_thread_voice", "journal_turn_end",
            ])
    }
}

@Suite("Journal indexes")
struct JournalIndexTests {
    /// The opcodes of SQLite's program for `sql` (`EXPLAIN`).
    private static func opcodes(_ sql: String, in pool: DatabasePool) async throws -> [String] {
        try await pool.read { db in try Row.fetchAll(db, sql: "EXPLAIN " + sql).map { $0["opcode"] } }
    }

    private static let insert = "INSERT INTO journal (seq, threadId, kind, text, bytes, createdAt) VALUES (1, 't', 'event', '{}', 2, 0)"

    /// SQLite checks each partial index's condition for every row appended; an `IN` list of more than two values
    /// is built there as a temporary table (`OpenEphemeral`) for each row, about a fifth of the bridge's CPU in P2
    /// (one journal row per Codex delta). A journal of the last shipped schema is upgraded to conditions without
    /// one, and readThread's query still finds its rows through the index.
    @Test func anAppendBuildsNoTemporaryTablePerRowAndReadThreadStillUsesItsIndex() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        do {
            let pool = try state.database(before: "v16-journal-thread-requests-without-in")
            // What the test looks for is there before the upgrade.
            #expect(try await Self.opcodes(Self.insert, in: pool).contains("OpenEphemeral"))
            try pool.close()
        }
        let database = try BridgeDatabase(paths: state.paths, logger: CapturedLogs().logger)
        #expect(try await !Self.opcodes(Self.insert, in: database.pool).contains("OpenEphemeral"))
        let plan = try await database.pool.read { db in
            let query = "SELECT text FROM journal WHERE threadId = 't' AND \(EventJournal.requestKinds) ORDER BY seq DESC"
            return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + query).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("USING INDEX journal_thread_requests") })
    }
}
