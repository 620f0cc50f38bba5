import BridgeProtocol

/// The goals Codex reports, kept in the hub's ``GoalBook`` and shown with `listThreads` and `readThread`
/// (`setGoal` and `clearGoal` are ``GoalRequests``).
extension ThreadHub {
    /// The goals of `threadIds` (those that have one): from the book, asking Codex (``GoalLookup``) for threads it
    /// does not know yet. A thread Codex cannot answer for stays unknown.
    func goals(of threadIds: [String]) async -> [String: ThreadGoal] {
        let unknown = threadIds.filter { desks.goals.goal(of: $0) == nil }
        if !unknown.isEmpty {
            for case (let threadId, .some(let goal)) in await GoalLookup(codex: codex).goals(of: unknown)
            where desks.goals.goal(of: threadId) == nil {
                desks.goals.record(goal, of: threadId)
            }
        }
        var out: [String: ThreadGoal] = [:]
        for threadId in threadIds {
            if case .some(.some(let goal)) = desks.goals.goal(of: threadId) { out[threadId] = goal }
        }
        return out
    }
}
