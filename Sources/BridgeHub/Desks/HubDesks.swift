/// The hub's desks, each a value type that owns its part of the state and the one way to change it: approvals,
/// questions, the queue of follow-ups, plans, goals and sub-agents. ``ThreadHub`` holds one of these and does the I/O they ask for.
struct HubDesks {
    /// Approvals waiting for their answer, and the one way to answer them (Desks/Approvals).
    var approvals = ApprovalDesk()
    /// The agent's questions waiting for their first answer, and the requests refused (Desks/Questions).
    var questions = QuestionDesk()
    /// Follow-ups held until the running turn ends, kept across restarts (Desks/Queue).
    var queue = MessageQueue()
    /// Plan mode and plans (Desks/Plans).
    var plans = PlanDesk()
    /// Goals (Desks/Goals).
    var goals = GoalBook()
    /// Sub-agents under their parents (Desks/SubAgents), and those whose thread was looked up already.
    var subAgents = SubAgentTracker()
    var lookedUpSubAgents: Set<String> = []
    /// What Codex's automatic reviewer denied, for a person to override (Desks/Reviews).
    var autoReviews = AutoReviewDesk()
}
