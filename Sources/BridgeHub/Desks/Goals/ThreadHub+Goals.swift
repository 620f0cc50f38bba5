import BridgeProtocol
import CodexControl
import Foundation
import Logging

/// Goals: `setGoal` / `clearGoal` are Codex's `thread/goal/set` / `clear` (through the gate: the thread inside the
/// roots). An active goal makes Codex start turns of its own, so the thread is loaded with this bridge's policy
/// first, as for any turn. The goals Codex reports are kept in a ``GoalBook`` and shown with `listThreads` and
/// `readThread`.
extension ThreadHub {
    /// Longest objective accepted, in characters.
    static let maxGoalObjective = 4000
    /// Largest token budget accepted.
    static let maxGoalBudget: Int64 = 1_000_000_000_000

    func setGoal(_ request: SetGoal, policy turnPolicy: TurnPolicy) async throws -> GoalSet {
        let objective = request.objective.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...Self.maxGoalObjective).contains(objective.count),
            !objective.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || $0.value == 0x7F })
        else {
            throw HubError(.badRequest, "objective must be 1 to \(Self.maxGoalObjective) characters without control characters")
        }
        if let budget = request.tokenBudget, !(1...Self.maxGoalBudget).contains(budget) {
            throw HubError(.badRequest, "tokenBudget must be a whole number from 1 to \(Self.maxGoalBudget)")
        }
        try await ensureLoaded(request.threadId, policy: turnPolicy)
        let answer = try await codex.threadGoalSet(
            threadId: request.threadId, objective: objective, tokenBudget: request.tokenBudget, timeout: policy.codexTimeout)
        guard let goal = GoalBook.goal(from: answer) else { throw CodexError.protocolViolation("thread/goal/set answered no goal") }
        desks.goals.record(goal, of: request.threadId)
        logger.info("Goal set", metadata: ["bridge.thread.id": "\(request.threadId)", "bridge.goal.status": "\(goal.status)"])
        return GoalSet(threadId: request.threadId, goal: goal)
    }

    func clearGoal(_ threadId: String) async throws -> Accepted {
        try await codex.threadGoalClear(threadId: threadId, timeout: policy.codexTimeout)
        desks.goals.record(nil, of: threadId)
        return Accepted(threadId: threadId)
    }

    /// The goals of `threadIds` (those that have one): from the book, asking Codex (`thread/goal/get`, a few at a
    /// time, briefly) for threads it does not know yet. A thread Codex cannot answer for stays unknown.
    func goals(of threadIds: [String]) async -> [String: ThreadGoal] {
        let unknown = threadIds.filter { desks.goals.goal(of: $0) == nil }
        if !unknown.isEmpty {
            let codex = self.codex
            let fetched = await withTaskGroup(of: (String, ThreadGoal??).self) { group in
                var results: [(String, ThreadGoal??)] = []
                var next = unknown.makeIterator()
                func add() -> Bool {
                    guard let threadId = next.next() else { return false }
                    group.addTask {
                        do {
                            let goal = try await codex.threadGoalGet(threadId: threadId, timeout: Self.goalLookupTimeout)
                            return (threadId, .some(GoalBook.goal(from: goal)))
                        } catch let error as CodexError where error.code == .rpc {
                            return (threadId, .some(nil))  // e.g. a thread without a rollout: no goal
                        } catch {
                            return (threadId, nil)
                        }
                    }
                    return true
                }
                for _ in 0..<Self.goalLookupsAtOnce where add() {}
                while let result = await group.next() {
                    results.append(result)
                    _ = add()
                }
                return results
            }
            for case (let threadId, .some(let goal)) in fetched where desks.goals.goal(of: threadId) == nil {
                desks.goals.record(goal, of: threadId)
            }
        }
        var out: [String: ThreadGoal] = [:]
        for threadId in threadIds {
            if case .some(.some(let goal)) = desks.goals.goal(of: threadId) { out[threadId] = goal }
        }
        return out
    }

    static let goalLookupsAtOnce = 8
    static let goalLookupTimeout: Duration = .seconds(3)
}
