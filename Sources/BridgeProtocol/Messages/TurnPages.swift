/// `readThread {threadId, turns?}`: Codex's thread object and what the bridge keeps beside it. With `turns`, the
/// object holds only the newest `turns` turns and the answer an `olderTurns` cursor for ``ReadTurns`` (paged
/// history: a long thread opens at once); without it, every turn, as before paging existed.
public struct ReadThread: ThreadPayload {
    public var threadId: String
    /// How many of the newest turns to return (1 to 100); absent: all of them.
    public var turns: Int?
    public init(threadId: String, turns: Int? = nil) {
        self.threadId = threadId
        self.turns = turns
    }
}

/// `readTurns {threadId, cursor, limit?}` (observe) → `turns {threadId, turns, olderTurns?, requests?}`: the page of
/// turns just before `cursor` (a `readThread` or `readTurns` answer's `olderTurns`), oldest first.
public struct ReadTurns: ThreadPayload {
    public var threadId: String
    /// Where the page ends: an earlier answer's `olderTurns`, as it came (opaque).
    public var cursor: String
    /// Turns per page (1 to 100, default 10).
    public var limit: Int?
    public init(threadId: String, cursor: String, limit: Int? = nil) {
        self.threadId = threadId
        self.cursor = cursor
        self.limit = limit
    }
}

/// The answer to `readTurns`: Codex's turn objects (with their items), oldest first.
public struct TurnPage: Codable, Sendable, Hashable {
    public var threadId: String
    public var turns: [JSONValue]
    /// The cursor for the page before this one; absent when this page holds the thread's first turn.
    public var olderTurns: String?
    /// The approvals and questions asked in these turns with their answers, as in `readThread`; absent when none.
    public var requests: [JSONValue]?
    public init(threadId: String, turns: [JSONValue], olderTurns: String? = nil, requests: [JSONValue]? = nil) {
        self.threadId = threadId
        self.turns = turns
        self.olderTurns = olderTurns
        self.requests = requests
    }
}
