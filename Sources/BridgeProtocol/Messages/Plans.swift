/// Codex's collaboration mode for a turn: `plan` (Codex asks and proposes a plan instead of editing) or
/// `default`. `startThread` and `sendMessage` take it; the bridge remembers a thread's last one and starts the
/// thread's later turns with it.
public enum CollaborationMode: String, Codable, Sendable, Hashable, CaseIterable {
    case plan
    case `default`
}

/// A sub-agent Codex spawned for a thread, as the bridge last heard of it (the `thread` answer's `subAgents`; live,
/// `bridge/subAgent` events).
public struct SubAgent: Codable, Sendable, Hashable {
    public var agentThreadId: String
    /// `pending`, `running`, `done`, `failed`, `interrupted` or `closed`.
    public var status: String?
    public var agentNickname: String?
    public var agentRole: String?
    public init(agentThreadId: String, status: String? = nil, agentNickname: String? = nil, agentRole: String? = nil) {
        self.agentThreadId = agentThreadId
        self.status = status
        self.agentNickname = agentNickname
        self.agentRole = agentRole
    }
}

/// One step of a turn's plan (Codex's `update_plan`).
public struct PlanStep: Codable, Sendable, Hashable {
    /// What the step is, as the agent wrote it.
    public var step: String
    /// `pending`, `inProgress` or `completed` (Codex's words; others may come).
    public var status: String
    public init(step: String, status: String) {
        self.step = step
        self.status = status
    }
}

/// The last plan Codex reported for one turn (`turn/plan/updated`): kept by the bridge so that a client that opens
/// the thread later shows it (`thread` answers carry every turn's last plan).
public struct TurnPlan: Codable, Sendable, Hashable {
    public var turnId: String
    public var explanation: String?
    public var plan: [PlanStep]
    public init(turnId: String, explanation: String? = nil, plan: [PlanStep]) {
        self.turnId = turnId
        self.explanation = explanation
        self.plan = plan
    }
}
