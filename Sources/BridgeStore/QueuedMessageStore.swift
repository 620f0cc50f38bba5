import BridgeProtocol
import Foundation
import GRDB

/// Follow-ups queued behind a running turn (`sendMessage {mode: "queue"}`), kept until they start, are cancelled
/// or fail, so that neither a Codex restart nor a bridge restart (kill -9 included) loses a user's message.
/// Written in the same actor step that announces the message (a synchronous write, like the journal's).
public struct QueuedMessageStore: Sendable {
    /// One held message: what was announced and the policy its turn runs with.
    public struct Entry: Sendable, Hashable {
        public var announcement: MessageQueued
        public var sandbox: String
        public var approvalPolicy: String
        public init(announcement: MessageQueued, sandbox: String, approvalPolicy: String) {
            self.announcement = announcement
            self.sandbox = sandbox
            self.approvalPolicy = approvalPolicy
        }
    }

    private let database: BridgeDatabase

    public init(database: BridgeDatabase) {
        self.database = database
    }

    /// Keeps `entry` (after every message already held).
    public func save(_ entry: Entry) throws {
        let text = String(decoding: try JSONEncoder().encode(entry.announcement), as: UTF8.self)
        try database.pool.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO queuedMessage (queuedId, threadId, announcement, sandbox, approvalPolicy)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [
                    entry.announcement.queuedId, entry.announcement.threadId, text, entry.sandbox, entry.approvalPolicy,
                ])
        }
    }

    /// Keeps `entries`, the waiting line of `threadId`, in this order (after a reorder or an edit), after the
    /// thread's other rows (a message being started stays first): one transaction, so a crash leaves the old line
    /// or the new one.
    public func replaceLine(of threadId: String, with entries: [Entry]) throws {
        let encoder = JSONEncoder()
        try database.pool.write { db in
            for entry in entries {
                try db.execute(sql: "DELETE FROM queuedMessage WHERE queuedId = ?", arguments: [entry.announcement.queuedId])
            }
            for entry in entries {
                let text = String(decoding: try encoder.encode(entry.announcement), as: UTF8.self)
                try db.execute(
                    sql: "INSERT INTO queuedMessage (queuedId, threadId, announcement, sandbox, approvalPolicy) VALUES (?, ?, ?, ?, ?)",
                    arguments: [entry.announcement.queuedId, threadId, text, entry.sandbox, entry.approvalPolicy])
            }
        }
    }

    /// Forgets `queuedId` (it started, was cancelled or failed).
    public func remove(_ queuedId: String) throws {
        try database.pool.write { db in
            try db.execute(sql: "DELETE FROM queuedMessage WHERE queuedId = ?", arguments: [queuedId])
        }
    }

    /// Every held message in the order it was queued (rows that no longer decode are dropped).
    public func all() throws -> [Entry] {
        try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT announcement, sandbox, approvalPolicy FROM queuedMessage ORDER BY rowid").compactMap { row in
                let text: String = row["announcement"]
                guard let announcement = try? JSONDecoder().decode(MessageQueued.self, from: Data(text.utf8)) else { return nil }
                return Entry(announcement: announcement, sandbox: row["sandbox"], approvalPolicy: row["approvalPolicy"])
            }
        }
    }
}
