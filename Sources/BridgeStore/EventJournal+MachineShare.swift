import GRDB

/// Each linked machine's share of the journal (issue 44): what a linked bridge relays counts against its own
/// share of the size limit, so one link cannot make the pruner cut this bridge's own messages. Pruning a
/// machine's oldest rows leaves holes in the seq range that `prunedThrough` cannot describe; the highest seq
/// removed that way is kept apart (`relayedPrunedThrough`), and a client that gets relayed messages hears of a
/// gap when its cursor is below it.
extension EventJournal {
    /// Deletes each linked machine's oldest relayed rows beyond `share` bytes of frames (this bridge's own rows
    /// are never touched here), in chunks. Returns how many rows went.
    @discardableResult
    public func pruneRelayed(share: Int64) async throws -> Int {
        let cuts: [(machine: String, through: Int64)] = try await database.pool.read { db in
            let over = try Row.fetchAll(
                db, sql: "SELECT machine FROM journal WHERE machine IS NOT NULL GROUP BY machine HAVING SUM(bytes) > ?", arguments: [share]
            ).map { $0[0] as String }
            return try over.compactMap { machine in
                let through = try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT seq FROM (SELECT seq, SUM(bytes) OVER (ORDER BY seq DESC ROWS UNBOUNDED PRECEDING) AS kept
                                         FROM journal WHERE machine = ?)
                        WHERE kept > ? ORDER BY seq DESC LIMIT 1
                        """, arguments: [machine, share])
                return through.map { (machine, $0) }
            }
        }
        var deleted = 0
        for (machine, through) in cuts {
            while true {
                let count = try await database.pool.write { db -> Int in
                    try db.execute(
                        sql: """
                            DELETE FROM journal WHERE seq IN (
                                SELECT seq FROM journal WHERE machine = ? AND seq <= ? ORDER BY seq LIMIT ?)
                            """, arguments: [machine, through, Self.pruneChunk])
                    let count = db.changesCount
                    try db.execute(
                        sql: """
                            INSERT INTO journalMeta (key, value) VALUES ('relayedPrunedThrough', ?)
                            ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)
                            """, arguments: [through])
                    return count
                }
                deleted += count
                if count < Self.pruneChunk { break }
            }
        }
        return deleted
    }

    /// Every relayed message at or below this seq may be gone (0 when none was pruned by a machine's share); for a
    /// client that gets relayed messages, the journal's gap line is the higher of this and ``prunedThrough()``.
    public func prunedThrough(relayed: Bool) throws -> Int64 {
        try database.pool.read { db in
            let own = try Self.prunedThrough(db)
            guard relayed else { return own }
            let shared = try Int64.fetchOne(db, sql: "SELECT value FROM journalMeta WHERE key = 'relayedPrunedThrough'") ?? 0
            return max(own, shared)
        }
    }

    /// Bytes of frames each linked machine holds in the journal now.
    public func relayedBytes() throws -> [String: Int64] {
        try database.pool.read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(
                    db, sql: "SELECT machine, SUM(bytes) FROM journal WHERE machine IS NOT NULL GROUP BY machine"
                ).map { ($0[0] as String, $0[1] as Int64) })
        }
    }
}
