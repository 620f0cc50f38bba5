import BridgeProtocol
import Foundation
import GRDB

/// What the bridge keeps of plans: the collaboration mode (`plan` or `default`) each thread's turns start with,
/// so that it survives a restart of Codex or of the bridge, and the last plan Codex reported for each turn
/// (`turn/plan/updated`), which Codex's own thread record does not keep. Writes are synchronous, made in the hub's
/// actor step that saw the change (like the journal's).
public struct ThreadPlanStore: Sendable {
    /// Most plans kept per thread (the newest turns').
    public static let maxPlansPerThread = 200

    private let database: BridgeDatabase

    public init(database: BridgeDatabase) {
        self.database = database
    }

    /// Remembers the collaboration mode of `threadId`.
    public func remember(_ mode: CollaborationMode, for threadId: String) throws {
        try database.pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO threadMode (threadId, collaborationMode) VALUES (?, ?)", arguments: [threadId, mode.rawValue])
        }
    }

    /// The remembered collaboration mode of `threadId`, if any.
    public func mode(of threadId: String) throws -> CollaborationMode? {
        try database.pool.read { db in
            try String.fetchOne(db, sql: "SELECT collaborationMode FROM threadMode WHERE threadId = ?", arguments: [threadId])
                .flatMap(CollaborationMode.init(rawValue:))
        }
    }

    /// Keeps `plan` as the last plan of its turn (replacing an earlier one); beyond ``maxPlansPerThread`` the
    /// oldest turns' plans are dropped.
    public func save(_ plan: TurnPlan, of threadId: String) throws {
        let text = String(decoding: try JSONEncoder().encode(plan), as: UTF8.self)
        try database.pool.write { db in
            // A replaced row keeps its place: the order of rowids is the order turns first had a plan.
            try db.execute(
                sql: "UPDATE turnPlan SET plan = ? WHERE threadId = ? AND turnId = ?", arguments: [text, threadId, plan.turnId])
            if db.changesCount == 0 {
                try db.execute(
                    sql: "INSERT INTO turnPlan (threadId, turnId, plan) VALUES (?, ?, ?)", arguments: [threadId, plan.turnId, text])
                try db.execute(
                    sql: """
                        DELETE FROM turnPlan WHERE threadId = ? AND rowid NOT IN
                        (SELECT rowid FROM turnPlan WHERE threadId = ? ORDER BY rowid DESC LIMIT ?)
                        """,
                    arguments: [threadId, threadId, Self.maxPlansPerThread])
            }
        }
    }

    /// The kept plans of `threadId`, oldest turn first (rows that no longer decode are left out).
    public func plans(of threadId: String) throws -> [TurnPlan] {
        try database.pool.read { db in
            try String.fetchAll(db, sql: "SELECT plan FROM turnPlan WHERE threadId = ? ORDER BY rowid", arguments: [threadId])
                .compactMap { try? JSONDecoder().decode(TurnPlan.self, from: Data($0.utf8)) }
        }
    }
}
