/// `setGoal {threadId, objective, tokenBudget?}`: Codex's `thread/goal/set`. Codex then works towards the objective
/// in turns of its own until it reports the goal complete, blocked, or out of budget.
public struct SetGoal: ThreadPayload {
    public var threadId: String
    /// What to achieve (1 to 4000 characters).
    public var objective: String
    /// The most tokens Codex may spend on it (positive).
    public var tokenBudget: Int64?
    public init(threadId: String, objective: String, tokenBudget: Int64? = nil) {
        self.threadId = threadId
        self.objective = objective
        self.tokenBudget = tokenBudget
    }
}

/// A thread's goal as Codex reports it (`thread/goal/updated`).
public struct ThreadGoal: Codable, Sendable, Hashable {
    public var objective: String
    /// `active`, `paused`, `blocked`, `usageLimited`, `budgetLimited` or `complete` (Codex's words; others may come).
    public var status: String
    public var tokenBudget: Int64?
    /// Tokens spent on it so far.
    public var tokensUsed: Int64?
    public var timeUsedSeconds: Int64?
    /// Seconds since 1970.
    public var updatedAt: Int64?
    public init(
        objective: String, status: String, tokenBudget: Int64? = nil, tokensUsed: Int64? = nil, timeUsedSeconds: Int64? = nil,
        updatedAt: Int64? = nil
    ) {
        self.objective = objective
        self.status = status
        self.tokenBudget = tokenBudget
        self.tokensUsed = tokensUsed
        self.timeUsedSeconds = timeUsedSeconds
        self.updatedAt = updatedAt
    }
}

/// `goal {threadId, goal}`: the answer to `setGoal`.
public struct GoalSet: Codable, Sendable, Hashable {
    public var threadId: String
    public var goal: ThreadGoal
    public init(threadId: String, goal: ThreadGoal) {
        self.threadId = threadId
        self.goal = goal
    }
}
