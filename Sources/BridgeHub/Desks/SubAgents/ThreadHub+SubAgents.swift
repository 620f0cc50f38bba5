import BridgeProtocol
import CodexControl
import Foundation
import Logging

/// Sub-agents: threads Codex spawns for a thread's agent. The hub tells them apart (``SubAgentTracker``, which also
/// gives their turn events their own turn ids), announces each one's status on the parent (`bridge/subAgent`,
/// journaled like any event), and learns its nickname, role and directory with `thread/read`.
extension ThreadHub {
    /// What the desks of plans, goals and sub-agents take from one Codex notification (after it was published).
    func observeDesks(_ kind: EventKind, params: JSONValue, threadId: String) {
        plans.observe(kind, params: params, threadId: threadId)
        goals.observe(kind, params: params, threadId: threadId)
        desks.autoReviews.observe(kind, params: params, threadId: threadId)
        let updates = desks.subAgents.observe(kind, params: params, threadId: threadId) {
            self.book.owner(ofTurn: $0, besides: threadId)
        }
        for update in updates { announce(update) }
    }

    /// Publishes a sub-agent's status on its parent; the first time, also looks the sub-agent up.
    func announce(_ update: SubAgentTracker.Update) {
        publishEvent("bridge/subAgent", data: update.eventData, threadId: update.parentThreadId)
        let child = update.agentThreadId
        if book[child]?.policy == nil, let parentPolicy = book[update.parentThreadId]?.policy {
            // Codex runs a sub-agent with its parent's policy; a turn the phone starts on it does too.
            book.know(child, generation: generation)
            book.setPolicy(parentPolicy, of: child)
        }
        if desks.subAgents.claimLookup(for: update) {
            let lookup = SubAgentLookup(codex: codex, timeout: policy.codexTimeout, logger: logger)
            background.start { await self.learnSubAgent(child, from: lookup.read(child)) }
        }
    }

    /// What a sub-agent's thread says: its nickname and role (announced when known) and its directory (the gate's).
    private func learnSubAgent(_ threadId: String, from thread: JSONValue?) {
        guard let thread, let parent = desks.subAgents.agents[threadId]?.parentThreadId else { return }
        book.know(threadId, cwd: thread["cwd"]?.stringValue, generation: generation)
        plans.learn(thread: thread)
        let update = desks.subAgents.learn(
            threadId, parent: thread["parentThreadId"]?.stringValue ?? parent, nickname: thread["agentNickname"]?.stringValue,
            role: thread["agentRole"]?.stringValue)
        if let update { announce(update) }
    }
}
