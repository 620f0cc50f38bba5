import GRDB

/// The schema of ``PushSubscriptionStore``.
enum PushMigrations {
    /// Web Push subscriptions per owner (a device id); a trigger deletes a device's
    /// rows when it is revoked, whichever process revokes it.
    static func v5PushSubscriptions(_ db: Database) throws {
        try db.create(table: "pushSubscription") { t in
            t.primaryKey("id", .text)
            t.column("owner", .text).notNull().indexed()
            t.column("endpoint", .text).notNull().unique()
            t.column("p256dh", .blob).notNull()
            t.column("auth", .blob).notNull()
            t.column("events", .text).notNull()
            t.column("createdAt", .datetime).notNull()
        }
        try db.execute(
            sql: """
                CREATE TRIGGER pushSubscriptionRevoked AFTER UPDATE OF revokedAt ON device
                WHEN NEW.revokedAt IS NOT NULL
                BEGIN DELETE FROM pushSubscription WHERE owner = NEW.id; END
                """)
    }
}
