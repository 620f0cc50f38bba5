import BridgeProtocol
import GRDB

/// The schema of device scopes, pairing confirmation and the audit log (issue 25).
enum TrustMigrations {
    /// - `device.scopes`: what each device may do; devices paired before scopes existed keep what they could do
    ///   (`observe,operate,approve`).
    /// - `pairingCode.scopes`: the scopes the device that redeems the code gets (NULL: the standard ones).
    /// - `pairingRequest`: pairings waiting for the workstation's confirmation (`serve --confirm-pairing`); the
    ///   row holds no secret, and is deleted once the pairing is allowed, denied, abandoned or expired.
    /// - `audit`: who did what (times in Unix seconds).
    static func v8Trust(_ db: Database) throws {
        try db.alter(table: "device") { t in
            t.add(column: "scopes", .text).notNull().defaults(to: Scopes.standard.description)
        }
        try db.alter(table: "pairingCode") { t in
            t.add(column: "scopes", .text)
        }
        try db.create(table: "pairingRequest") { t in
            t.primaryKey("deviceId", .text)
            t.column("name", .text).notNull()
            t.column("platform", .text)
            t.column("address", .text)
            t.column("checkCode", .text).notNull()
            t.column("scopes", .text).notNull()
            t.column("createdAt", .datetime).notNull()
            t.column("expiresAt", .datetime).notNull()
            t.column("decision", .text)
        }
        try db.create(table: "audit") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("at", .double).notNull().indexed()
            t.column("actor", .text).notNull()
            t.column("deviceId", .text).indexed()
            t.column("deviceName", .text)
            t.column("address", .text)
            t.column("kind", .text).notNull()
            t.column("threadId", .text)
            t.column("outcome", .text).notNull()
            t.column("detail", .text)
        }
    }

    /// Alike refusals counted in one audit row (issue 31): `count` (1 for every row before), `lastAt` (the last
    /// one counted), and an index for finding a device's recent rows.
    static func v10AuditCounts(_ db: Database) throws {
        try db.alter(table: "audit") { t in
            t.add(column: "count", .integer).notNull().defaults(to: 1)
            t.add(column: "lastAt", .double)
        }
        try db.create(index: "audit_device_at", on: "audit", columns: ["deviceId", "at"])
    }

    /// `scopeRequest`: a paired device's request for more scopes, waiting for the workstation (one per device; no
    /// secret; deleted once granted or expired; refused ones are marked from v15).
    static func v12ScopeRequests(_ db: Database) throws {
        try db.create(table: "scopeRequest") { t in
            t.primaryKey("deviceId", .text)
            t.column("scopes", .text).notNull()
            t.column("checkCode", .text).notNull()
            t.column("createdAt", .datetime).notNull()
            t.column("expiresAt", .datetime).notNull()
        }
    }

    /// Who a linked home bridge made a request for, as it reported it (issue 33): `behalfActor`, `behalfDeviceId`,
    /// `behalfName` (null for every other row).
    static func v14AuditOnBehalf(_ db: Database) throws {
        try db.alter(table: "audit") { t in
            t.add(column: "behalfActor", .text)
            t.add(column: "behalfDeviceId", .text)
            t.add(column: "behalfName", .text)
        }
    }

    /// `scopeRequest.deniedAt`: a refused request stays (until it would have expired) so the serving bridge can
    /// tell the device (`scopeRequestEnded`), whichever process refused it.
    static func v15ScopeRequestDenied(_ db: Database) throws {
        try db.alter(table: "scopeRequest") { t in t.add(column: "deniedAt", .datetime) }
    }
}
