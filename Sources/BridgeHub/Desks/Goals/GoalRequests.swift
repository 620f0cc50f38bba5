import BridgeProtocol
import CodexControl
import Foundation
import Logging

/// Goals: `setGoal` / `clearGoal` are Codex's `thread/goal/set` / `clear` (through the gate: the thread inside the
/// roots). An active goal makes Codex start turns of its own, so the thread is loaded with this bridge's policy
/// first, as for any turn. The goal Codex answers goes to the ``GoalDesk``.
struct GoalRequests: RequestCollection {
    /// Longest objective accepted, in characters.
    static let maxObjective = 4000
    /// Largest token budget accepted.
    static let maxBudget: Int64 = 1_000_000_000_000

    func register(into routes: inout RequestRoutes) {
        routes.on(.setGoal) { (services, request: SetGoal, context) in
            let objective = try Self.objective(request)
            try await services.ensureLoaded(request.threadId, policy: context.policy)
            let answer = try await services.codex.threadGoalSet(
                threadId: request.threadId, objective: objective, tokenBudget: request.tokenBudget, timeout: services.policy.codexTimeout)
            guard let goal = GoalBook.goal(from: answer) else { throw CodexError.protocolViolation("thread/goal/set answered no goal") }
            services.goals.record(goal, of: request.threadId)
            services.logger.info("Goal set", metadata: ["bridge.thread.id": "\(request.threadId)", "bridge.goal.status": "\(goal.status)"])
            return .goal(GoalSet(threadId: request.threadId, goal: goal))
        }
        routes.on(.clearGoal) { (services, ref: ThreadRef, _) in
            try await services.codex.threadGoalClear(threadId: ref.threadId, timeout: services.policy.codexTimeout)
            services.goals.record(nil, of: ref.threadId)
            return .accepted(Accepted(threadId: ref.threadId))
        }
    }

    /// The request's objective, trimmed; `bad_request` when it or the budget is out of bounds.
    static func objective(_ request: SetGoal) throws -> String {
        let objective = request.objective.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...maxObjective).contains(objective.count),
            !objective.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || $0.value == 0x7F })
        else {
            throw HubError(.badRequest, "objective must be 1 to \(maxObjective) characters without control characters")
        }
        if let budget = request.tokenBudget, !(1...maxBudget).contains(budget) {
            throw HubError(.badRequest, "tokenBudget must be a whole number from 1 to \(maxBudget)")
        }
        return objective
    }
}
