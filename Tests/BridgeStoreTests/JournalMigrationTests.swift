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
        try FileManager.default.createDirectory(at: state.paths.stateDirectory, withIntermediateDirectories: true)
        do {
            let pool = try DatabasePool(path: state.paths.databaseFile.path)
            var migrator = DatabaseMigrator()
            for (identifier, migrate) in BridgeMigrations.all.prefix(2) { migrator.registerMigration(identifier, migrate: migrate) }
            try migrator.migrate(pool)
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
        // v3 keeps only the indexes the startup queries need; the fleet's relayed rows and readThread's approvals and
        // questions add one each.
        #expect(indexes == ["journal_approval_resolved", "journal_relayed", "journal_thread_requests", "journal_turn_end"])
    }
}
