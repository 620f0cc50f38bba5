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

    /// A subscription belongs to (device, endpoint): the endpoint alone was unique, so another device
    /// submitting the same endpoint took the row over. SQLite cannot drop a constraint: the table is rebuilt.
    static func v6KeyedByDeviceAndEndpoint(_ db: Database) throws {
        try db.create(table: "pushSubscriptionV6") { t in
            t.primaryKey("id", .text)
            t.column("owner", .text).notNull().indexed()
            t.column("endpoint", .text).notNull()
            t.column("p256dh", .blob).notNull()
            t.column("auth", .blob).notNull()
            t.column("events", .text).notNull()
            t.column("createdAt", .datetime).notNull()
            t.uniqueKey(["owner", "endpoint"])
        }
        try db.execute(
            sql: "INSERT INTO pushSubscriptionV6 SELECT id, owner, endpoint, p256dh, auth, events, createdAt FROM pushSubscription")
        try db.execute(sql: "DROP TRIGGER pushSubscriptionRevoked")
        try db.drop(table: "pushSubscription")
        try db.rename(table: "pushSubscriptionV6", to: "pushSubscription")
        try db.execute(
            sql: """
                CREATE TRIGGER pushSubscriptionRevoked AFTER UPDATE OF revokedAt ON device
                WHEN NEW.revokedAt IS NOT NULL
                BEGIN DELETE FROM pushSubscription WHERE owner = NEW.id; END
                """)
    }
}
