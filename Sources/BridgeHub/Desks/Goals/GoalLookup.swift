import BridgeProtocol
import CodexControl

/// Asks Codex for the goals of threads the ``GoalBook`` does not know yet (`thread/goal/get`, a few at a time,
/// briefly), for `listThreads` and `readThread`.
struct GoalLookup: Sendable {
    let codex: any CodexPort

    static let lookupsAtOnce = 8
    static let lookupTimeout: Duration = .seconds(3)

    /// Each thread's goal: `.some(nil)` when Codex says it has none, nil when Codex could not answer (unknown).
    func goals(of threadIds: [String]) async -> [(threadId: String, goal: ThreadGoal??)] {
        let codex = self.codex
        return await withTaskGroup(of: (String, ThreadGoal??).self) { group in
            var results: [(threadId: String, goal: ThreadGoal??)] = []
            var next = threadIds.makeIterator()
            func add() -> Bool {
                guard let threadId = next.next() else { return false }
                group.addTask {
                    do {
                        let goal = try await codex.threadGoalGet(threadId: threadId, timeout: Self.lookupTimeout)
                        return (threadId, .some(GoalBook.goal(from: goal)))
                    } catch let error as CodexError where error.code == .rpc {
                        return (threadId, .some(nil))  // e.g. a thread without a rollout: no goal
                    } catch {
                        return (threadId, nil)
                    }
                }
                return true
            }
            for _ in 0..<Self.lookupsAtOnce where add() {}
            while let result = await group.next() {
                results.append(result)
                _ = add()
            }
            return results
        }
    }
}
