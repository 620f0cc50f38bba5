import Foundation
import GRDB

/// Web Push subscriptions, per paired device. A device's rows go when it is revoked (a trigger in the schema),
/// so a revoked phone is never pushed to again.
public struct PushSubscriptionStore: Sendable {
    /// One stored subscription.
    public struct Entry: Sendable, Hashable {
        public var id: String
        public var owner: String
        public var endpoint: String
        public var p256dh: Data
        public var auth: Data
        /// Comma-separated event kinds.
        public var events: String
        public init(id: String, owner: String, endpoint: String, p256dh: Data, auth: Data, events: String) {
            self.id = id
            self.owner = owner
            self.endpoint = endpoint
            self.p256dh = p256dh
            self.auth = auth
            self.events = events
        }
    }

    /// Most subscriptions one owner may hold (a browser re-subscribing replaces its own row by endpoint; a
    /// sixth drops the owner's oldest).
    public static let maxPerOwner = 5

    private let database: BridgeDatabase

    public init(database: BridgeDatabase) {
        self.database = database
    }

    /// Adds a subscription, or updates the owner's own one with the same endpoint (another owner's row with that
    /// endpoint stays theirs); returns its id. The owner's oldest rows beyond ``maxPerOwner`` are dropped.
    public func save(owner: String, endpoint: String, p256dh: Data, auth: Data, events: String) async throws -> String {
        let newId = "ps-" + UUID().uuidString.lowercased().prefix(12)
        return try await database.writeImmediate { db in
            let id =
                try String.fetchOne(
                    db, sql: "SELECT id FROM pushSubscription WHERE owner = ? AND endpoint = ?", arguments: [owner, endpoint])
                ?? String(newId)
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO pushSubscription (id, owner, endpoint, p256dh, auth, events, createdAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [id, owner, endpoint, p256dh, auth, events, Date()])
            try db.execute(
                sql: """
                    DELETE FROM pushSubscription WHERE owner = ? AND id NOT IN
                    (SELECT id FROM pushSubscription WHERE owner = ? ORDER BY createdAt DESC, rowid DESC LIMIT ?)
                    """,
                arguments: [owner, owner, Self.maxPerOwner])
            return id
        }
    }

    /// Removes `id` if `owner` holds it; returns whether it did.
    @discardableResult
    public func remove(id: String, owner: String? = nil) async throws -> Bool {
        try await database.pool.write { db in
            if let owner {
                try db.execute(sql: "DELETE FROM pushSubscription WHERE id = ? AND owner = ?", arguments: [id, owner])
            } else {
                try db.execute(sql: "DELETE FROM pushSubscription WHERE id = ?", arguments: [id])
            }
            return db.changesCount > 0
        }
    }

    /// Every subscription of a device that is not revoked.
    public func all() async throws -> [Entry] {
        try await database.pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT p.id, p.owner, p.endpoint, p.p256dh, p.auth, p.events FROM pushSubscription p
                    JOIN device d ON d.id = p.owner
                    WHERE d.revokedAt IS NULL
                    ORDER BY p.createdAt
                    """
            ).map {
                Entry(
                    id: $0["id"], owner: $0["owner"], endpoint: $0["endpoint"], p256dh: $0["p256dh"], auth: $0["auth"], events: $0["events"]
                )
            }
        }
    }
}
