import GRDB

/// The schema of ``ThreadPlanStore``.
enum PlanMigrations {
    /// The collaboration mode each thread's turns start with, and the last plan of each turn.
    static func v9ThreadModesAndTurnPlans(_ db: Database) throws {
        try db.create(table: "threadMode") { t in
            t.primaryKey("threadId", .text)
            t.column("collaborationMode", .text).notNull()
        }
        try db.create(table: "turnPlan") { t in
            t.column("threadId", .text).notNull()
            t.column("turnId", .text).notNull()
            t.column("plan", .text).notNull()
            t.primaryKey(["threadId", "turnId"])
        }
    }
}
