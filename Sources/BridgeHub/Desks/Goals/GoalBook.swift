import BridgeProtocol
import CodexControl

/// The goals the hub knows, per thread, as a value: what Codex answered (`thread/goal/set`, `thread/goal/get`) or
/// reported (`thread/goal/updated`, `thread/goal/cleared`). A thread is either known to have a goal, known to have
/// none, or not known (then `thread/goal/get` asks).
struct GoalBook {
    private var known: [String: ThreadGoal?] = [:]

    /// The goal of `threadId`: `.some(nil)` when known to have none, nil when unknown.
    func goal(of threadId: String) -> ThreadGoal?? { known[threadId] }

    mutating func record(_ goal: ThreadGoal?, of threadId: String) { known[threadId] = .some(goal) }

    /// Follows Codex's goal notifications; true when the book changed.
    @discardableResult
    mutating func observe(_ kind: EventKind, params: JSONValue, threadId: String) -> Bool {
        switch kind {
        case .codex(.threadGoalUpdated):
            guard let goal = Self.goal(from: params["goal"]) else { return false }
            record(goal, of: threadId)
        case .codex(.threadGoalCleared):
            record(nil, of: threadId)
        default:
            return false
        }
        return true
    }

    /// Codex's goal object as the bridge passes it on; nil when it is not one.
    static func goal(from json: JSONValue?) -> ThreadGoal? {
        guard let json, let objective = json["objective"]?.stringValue, let status = json["status"]?.stringValue else { return nil }
        let integer = { (key: String) in json[key]?.numberValue.map { Int64(exactly: $0.rounded()) ?? 0 } }
        return ThreadGoal(
            objective: objective, status: status, tokenBudget: integer("tokenBudget"), tokensUsed: integer("tokensUsed"),
            timeUsedSeconds: integer("timeUsedSeconds"), updatedAt: integer("updatedAt"))
    }
}
