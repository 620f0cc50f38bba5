/// The hub's desks, each a value type that owns its part of the state and the one way to change it: approvals,
/// questions, the queue of follow-ups and sub-agents (plans and goals are beside the hub: ``PlanService``,
/// ``GoalDesk``). ``ThreadHub`` holds one of these and does the I/O they ask for.
struct HubDesks {
    /// Approvals waiting for their answer, and the one way to answer them (Desks/Approvals).
    var approvals = ApprovalDesk()
    /// The agent's questions waiting for their first answer, and the requests refused (Desks/Questions).
    var questions = QuestionDesk()
    /// Follow-ups held until the running turn ends, kept across restarts (Desks/Queue).
    var queue = MessageQueue()
    /// Sub-agents under their parents (Desks/SubAgents).
    var subAgents = SubAgentTracker()
    /// What Codex's automatic reviewer denied, for a person to override (Desks/Reviews).
    var autoReviews = AutoReviewDesk()
}
