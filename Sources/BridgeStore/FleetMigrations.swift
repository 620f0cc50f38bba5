import GRDB

/// The schema of the fleet (issue 33): the machines linked to this bridge, and which journaled messages were
/// relayed from one of them.
enum FleetMigrations {
    /// - `machine`: a bridge this one is a client of (`codex-bridge machines add`). `token` is the device token
    ///   that bridge gave this one: a client credential (the file is 0600), never logged.
    /// - `journal.machine`, `journal.remoteSeq`: a message relayed from a linked machine, and its seq there. The
    ///   highest `remoteSeq` of a machine is the resume cursor of the link, written in the same transaction as the
    ///   message: a restart neither loses nor repeats one.
    static func v11Fleet(_ db: Database) throws {
        try db.create(table: "machine") { t in
            t.primaryKey("id", .text)
            t.column("name", .text).notNull()
            t.column("addresses", .text).notNull()
            t.column("port", .integer).notNull()
            t.column("fingerprint", .text)
            t.column("deviceId", .text).notNull()
            t.column("token", .text).notNull()
            t.column("clientId", .text).notNull()
            t.column("state", .text).notNull().defaults(to: "offline")
            t.column("addedAt", .double).notNull()
        }
        try db.alter(table: "journal") { t in
            t.add(column: "machine", .text)
            t.add(column: "remoteSeq", .integer)
        }
        try db.execute(sql: "CREATE INDEX journal_relayed ON journal(machine, remoteSeq) WHERE machine IS NOT NULL")
    }

    /// `machine.errorCode`, `machine.errorMessage` (issue 44): why the running bridge closed a link the last time
    /// it did (`bad_frame`, `over_budget`), for `machines list` and the phones.
    static func v17MachineError(_ db: Database) throws {
        try db.alter(table: "machine") { t in
            t.add(column: "errorCode", .text)
            t.add(column: "errorMessage", .text)
        }
    }
}
