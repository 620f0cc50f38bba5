import GRDB

/// The database schema, as an ordered list of migrations. Append new migrations at the end; never edit or
/// reorder one that has shipped (GRDB records applied identifiers in `grdb_migrations`).
enum BridgeMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (identifier, migrate) in all {
            migrator.registerMigration(identifier, migrate: migrate)
        }
        return migrator
    }

    static let all: [(String, @Sendable (Database) throws -> Void)] = [
        ("v1-devices", v1Devices),
        ("v2-journal", JournalMigrations.v2Journal),
        ("v3-journal-lean-indexes", JournalMigrations.v3LeanIndexes),
        ("v4-thread-policy-code-failures", v4ThreadPolicyCodeFailures),
        ("v5-push-subscriptions", PushMigrations.v5PushSubscriptions),
        ("v6-push-subscriptions-per-device", PushMigrations.v6KeyedByDeviceAndEndpoint),
        ("v7-queued-messages", v7QueuedMessages),
        ("v8-trust", TrustMigrations.v8Trust),
        ("v9-thread-modes-turn-plans", PlanMigrations.v9ThreadModesAndTurnPlans),
        ("v10-audit-counts", TrustMigrations.v10AuditCounts),
        ("v11-fleet", FleetMigrations.v11Fleet),
        ("v12-journal-thread-requests", JournalMigrations.v11ThreadRequests),
        ("v13-scope-requests", TrustMigrations.v12ScopeRequests),
        ("v14-audit-on-behalf", TrustMigrations.v14AuditOnBehalf),
        ("v15-scope-request-denied", TrustMigrations.v15ScopeRequestDenied),
        ("v16-journal-thread-requests-without-in", JournalMigrations.v16ThreadRequestsWithoutIn),
        ("v17-machine-error", FleetMigrations.v17MachineError),
        ("v18-journal-thread-voice", JournalMigrations.v18ThreadVoice),
    ]

    /// Follow-ups waiting behind a running turn (``QueuedMessageStore``).
    private static func v7QueuedMessages(_ db: Database) throws {
        try db.create(table: "queuedMessage") { t in
            t.primaryKey("queuedId", .text)
            t.column("threadId", .text).notNull()
            t.column("announcement", .text).notNull()
            t.column("sandbox", .text).notNull()
            t.column("approvalPolicy", .text).notNull()
        }
    }

    /// The sandbox and approval policy each thread was started with (so a resume after a restart keeps them),
    /// and a count of failed redemptions per live pairing code (a code is burnt after too many).
    private static func v4ThreadPolicyCodeFailures(_ db: Database) throws {
        try db.create(table: "threadPolicy") { t in
            t.primaryKey("threadId", .text)
            t.column("sandbox", .text).notNull()
            t.column("approvalPolicy", .text).notNull()
        }
        try db.alter(table: "pairingCode") { t in
            t.add(column: "failedAttempts", .integer).notNull().defaults(to: 0)
        }
    }

    /// Paired devices and one-time pairing codes. Secrets are stored only as SHA-256 hashes.
    private static func v1Devices(_ db: Database) throws {
        try db.create(table: "device") { t in
            t.primaryKey("id", .text)
            t.column("name", .text).notNull()
            t.column("platform", .text)
            t.column("tokenHash", .blob).notNull().unique()
            t.column("pairedAt", .datetime).notNull()
            t.column("lastSeenAt", .datetime)
            t.column("lastAddress", .text)
            t.column("revokedAt", .datetime)
            t.column("ackedSeq", .integer).notNull().defaults(to: 0)
        }
        try db.create(table: "pairingCode") { t in
            t.primaryKey("codeHash", .blob)
            t.column("createdAt", .datetime).notNull()
            t.column("expiresAt", .datetime).notNull().indexed()
            t.column("usedAt", .datetime)
            t.column("usedByDevice", .text)
        }
    }
}
