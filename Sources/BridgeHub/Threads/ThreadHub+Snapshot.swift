import BridgeProtocol
import BridgeStore
import Foundation

/// `readThread`'s answer beside Codex's thread: what the bridge keeps of it (Desks/Plans, Desks/Goals,
/// Desks/SubAgents) and, mid-turn, the running turn's text so far from the journal.
extension ThreadHub {
    /// `readThread`'s answer: Codex's thread and what the bridge keeps beside it (goal, mode, plans, the running
    /// turn's text so far, the approvals and questions with their answers).
    func snapshot(of threadId: String, thread: JSONValue) async -> ThreadSnapshot {
        plans.learn(thread: thread)
        let kept = plans.plans(of: threadId)
        let goal = await goals.goals(of: [threadId])[threadId]
        let agents = desks.subAgents.shown(under: threadId)
        var answer = ThreadSnapshot(
            thread: thread, goal: goal, collaborationMode: plans.rememberedMode(of: threadId), plans: kept.isEmpty ? nil : kept,
            subAgents: agents.isEmpty ? nil : agents, tokenUsage: book[threadId]?.tokenUsage)
        // Mid-turn: the items Codex has not recorded yet, with their text so far, from the journal (issue 37 item 2).
        if let running = book.runningTurnSince(of: threadId) {
            let seam = events.lastSeq
            if let soFar = try? await TurnSoFar.read(
                from: storage.journal, threadId: threadId, turnId: running.turnId, after: running.since, through: seam)
            {
                answer.thread = soFar.merged(into: answer.thread)
                answer.throughSeq = seam
            }
        }
        answer.requests = await journaledRequests.frames(of: threadId)
        return answer
    }
}
