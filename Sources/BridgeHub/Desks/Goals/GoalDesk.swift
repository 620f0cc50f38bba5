import BridgeProtocol
import Synchronization

/// The goals of threads beside the hub, not in it: the ``GoalBook`` behind a lock, so that Codex's goal
/// notifications update it in the hub's event step (no hop, no await) while `listThreads`, `readThread` and the
/// goal requests read and fill it without the hub's executor, asking Codex (``GoalLookup``) for threads it does
/// not know yet.
final class GoalDesk: Sendable {
    private let book = Mutex(GoalBook())
    private let lookup: GoalLookup

    init(lookup: GoalLookup) { self.lookup = lookup }

    /// Follows Codex's goal notifications (`thread/goal/updated`, `thread/goal/cleared`).
    func observe(_ kind: EventKind, params: JSONValue, threadId: String) {
        book.withLock { _ = $0.observe(kind, params: params, threadId: threadId) }
    }

    /// What Codex answered for `threadId` (`thread/goal/set`, `clear`: nil).
    func record(_ goal: ThreadGoal?, of threadId: String) {
        book.withLock { $0.record(goal, of: threadId) }
    }

    /// The goals of `threadIds` (those that have one): from the book, asking Codex for threads it does not know
    /// yet. A thread Codex cannot answer for stays unknown; one a notification taught meanwhile keeps that goal.
    func goals(of threadIds: [String]) async -> [String: ThreadGoal] {
        let unknown = book.withLock { book in threadIds.filter { book.goal(of: $0) == nil } }
        let found = unknown.isEmpty ? [] : await lookup.goals(of: unknown)
        return book.withLock { book in
            for case (let threadId, .some(let goal)) in found where book.goal(of: threadId) == nil {
                book.record(goal, of: threadId)
            }
            var out: [String: ThreadGoal] = [:]
            for threadId in threadIds {
                if case .some(.some(let goal)) = book.goal(of: threadId) { out[threadId] = goal }
            }
            return out
        }
    }
}
