import GRDB

/// The schema of the event journal, remembered subscriptions and request answers (issue 6).
enum JournalMigrations {
    static func v2Journal(_ db: Database) throws {
        // One row per journaled server message, in `seq` order. `text` is the exact frame sent to clients.
        try db.create(table: "journal") { t in
            t.primaryKey("seq", .integer)
            t.column("threadId", .text).notNull()
            t.column("kind", .text).notNull()
            t.column("type", .text)
            t.column("turnId", .text)
            t.column("approvalId", .text)
            t.column("text", .text).notNull()
            t.column("bytes", .integer).notNull()
            t.column("createdAt", .double).notNull()
        }
        try db.create(index: "journal_createdAt", on: "journal", columns: ["createdAt"])
        try db.create(index: "journal_thread_turn", on: "journal", columns: ["threadId", "turnId"])
        try db.create(index: "journal_approval", on: "journal", columns: ["approvalId"])
        // Small facts about the journal: `prunedThrough` (every seq at or below it is gone) survives an empty journal.
        try db.create(table: "journalMeta") { t in
            t.primaryKey("key", .text)
            t.column("value", .integer).notNull()
        }
        // Subscriptions a client had, restored when it reconnects (keyed by device id or `client:<clientId>`).
        try db.create(table: "deviceSubscription") { t in
            t.column("deviceId", .text).notNull()
            t.column("threadId", .text).notNull()
            t.column("createdAt", .double).notNull()
            t.primaryKey(["deviceId", "threadId"])
        }
        // The first answer to a request, returned again when the same client retries the same id.
        try db.create(table: "requestAnswer") { t in
            t.column("deviceId", .text).notNull()
            t.column("requestId", .text).notNull()
            t.column("kind", .text).notNull()
            t.column("answer", .text).notNull()
            t.column("createdAt", .double).notNull().indexed()
            t.primaryKey(["deviceId", "requestId"])
        }
    }

    /// Every append updated three secondary indexes; the relay appends one row per Codex event. Only the rows
    /// the startup queries look for are indexed now (turn ends, approval resolutions), and retention walks the
    /// primary key instead of an index on `createdAt`.
    static func v3LeanIndexes(_ db: Database) throws {
        try db.execute(
            sql: """
                DROP INDEX journal_createdAt;
                DROP INDEX journal_thread_turn;
                DROP INDEX journal_approval;
                CREATE INDEX journal_turn_end ON journal(threadId, turnId) WHERE type IN ('turn/completed', 'bridge/turnFailed');
                CREATE INDEX journal_approval_resolved ON journal(approvalId) WHERE kind = 'approvalResolved';
                """)
    }

    /// A thread's approvals and questions with their answers, for `readThread` (``EventJournal/requestFrames(of:limit:)``).
    /// As shipped; ``v16ThreadRequestsWithoutIn(_:)`` replaces the index.
    static func v11ThreadRequests(_ db: Database) throws {
        try db.execute(
            sql:
                "CREATE INDEX journal_thread_requests ON journal(threadId, seq) WHERE kind IN ('approvalRequest', 'approvalResolved', 'inputRequest', 'inputResolved')"
        )
    }

    /// The same index with its condition as `=` terms joined by `OR` (``EventJournal/requestKinds``). SQLite
    /// evaluates a partial index's condition for every inserted row, and an `IN` list of three or more values is
    /// built there as a temporary b-tree each time (an ephemeral table, four inserts and a lookup per journal row):
    /// without it P2's bridge CPU per event went from 12.5 to 10.1 µs (medians of 8 runs in one window; a build from
    /// before this index: 10.35). The same rows are indexed; readThread's query still uses it.
    static func v16ThreadRequestsWithoutIn(_ db: Database) throws {
        try db.execute(
            sql: """
                DROP INDEX journal_thread_requests;
                CREATE INDEX journal_thread_requests ON journal(threadId, seq) WHERE \(EventJournal.requestKinds);
                """)
    }

    /// A thread's voice transcript parts (`bridge/voiceTranscript` events), for `readThread`'s `voice`: without it
    /// the query reads every journal row of the thread (its deltas too). One `=` on `type`: cheap on every insert.
    static func v18ThreadVoice(_ db: Database) throws {
        try db.execute(sql: "CREATE INDEX journal_thread_voice ON journal(threadId, seq) WHERE \(EventJournal.voiceType)")
    }
}
