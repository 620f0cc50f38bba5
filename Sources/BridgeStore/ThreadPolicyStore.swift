import GRDB

/// The sandbox and approval policy each thread was started with, so that resuming it after a restart (of
/// Codex or of the bridge) keeps them instead of falling back to defaults or to what Codex stored.
public struct ThreadPolicyStore: Sendable {
    /// A thread's remembered policy.
    public struct Entry: Sendable, Hashable {
        public var sandbox: String
        public var approvalPolicy: String
        public init(sandbox: String, approvalPolicy: String) {
            self.sandbox = sandbox
            self.approvalPolicy = approvalPolicy
        }
    }

    private let database: BridgeDatabase

    public init(database: BridgeDatabase) {
        self.database = database
    }

    /// Remembers (or replaces) the policy of `threadId`.
    public func remember(_ entry: Entry, for threadId: String) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO threadPolicy (threadId, sandbox, approvalPolicy) VALUES (?, ?, ?)",
                arguments: [threadId, entry.sandbox, entry.approvalPolicy])
        }
    }

    /// The remembered policy of `threadId`, if any.
    public func entry(for threadId: String) async throws -> Entry? {
        try await database.pool.read { db in
            try Row.fetchOne(db, sql: "SELECT sandbox, approvalPolicy FROM threadPolicy WHERE threadId = ?", arguments: [threadId])
                .map { Entry(sandbox: $0["sandbox"], approvalPolicy: $0["approvalPolicy"]) }
        }
    }
}
