import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Logging

/// Plan mode and plans: every turn this bridge starts goes through ``startTurn(_:)``, which names the thread's
/// collaboration mode (the one the request chose, else the one the thread remembers) so that plan mode survives
/// a restart of Codex or of the bridge; `turn/plan/updated` plans are kept per turn and returned with the thread.
extension ThreadHub {
    /// One turn to start: what `startThread`, `sendMessage` and a queued message have in common.
    struct TurnStart {
        var threadId: String
        var text: String
        var policy: TurnPolicy
        var model: String?
        var effort: String?
        var extraInput: [JSONValue] = []
        /// The mode the request chose (nil: the thread's remembered one, if any).
        var collaborationMode: CollaborationMode?
    }

    /// Starts a turn (`turn/start`) with the thread's collaboration mode; → the turn's id. A mode the request chose
    /// is remembered once Codex accepted the turn.
    func startTurn(_ start: TurnStart) async throws -> String {
        let mode = start.collaborationMode ?? rememberedMode(of: start.threadId)
        var codexMode: CodexCollaborationMode?
        if let mode {
            let settings = try await modelSettings(of: start.threadId, model: start.model, effort: start.effort)
            codexMode = CodexCollaborationMode(mode: mode.rawValue, model: settings.model, effort: settings.effort)
        }
        let turnId = try await codex.turnStart(
            threadId: start.threadId, text: start.text, sandbox: start.policy.sandbox, approvalPolicy: start.policy.approvalPolicy,
            model: start.model, effort: start.effort, extraInput: start.extraInput, collaborationMode: codexMode,
            timeout: policy.codexTimeout)
        desks.plans.learn(threadId: start.threadId, model: start.model, effort: start.effort)
        if let chosen = start.collaborationMode { rememberMode(chosen, of: start.threadId) }
        return turnId
    }

    /// The mode `threadId`'s turns start with when a request names none (looked up on disk once).
    func rememberedMode(of threadId: String) -> CollaborationMode? {
        if let known = desks.plans.mode(of: threadId) { return known }
        let stored: CollaborationMode?
        do {
            stored = try storage.plans.mode(of: threadId)
        } catch {
            logger.warning("Cannot read a thread's collaboration mode", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
            return nil
        }
        desks.plans.remember(stored, of: threadId)
        return stored
    }

    /// Remembers the mode a request chose (also when it steered a running turn: the thread's next turns use it).
    func rememberMode(_ mode: CollaborationMode, of threadId: String) {
        guard rememberedMode(of: threadId) != mode else { return }
        desks.plans.remember(mode, of: threadId)
        do {
            try storage.plans.remember(mode, for: threadId)
        } catch {
            logger.warning(
                "Cannot remember a thread's collaboration mode", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
        }
    }

    /// The model and effort a collaboration mode must name for `threadId`: the request's, else what Codex reported
    /// for the thread (asking it with `thread/read` when nothing was reported yet).
    private func modelSettings(of threadId: String, model: String?, effort: String?) async throws -> PlanDesk.ModelSettings {
        if desks.plans.models[threadId] == nil, model == nil {
            let thread = try await codex.threadRead(threadId: threadId, includeTurns: false, timeout: policy.codexTimeout)
            desks.plans.learn(thread: thread)
        }
        guard let known = model ?? desks.plans.models[threadId]?.model else {
            throw HubError(.codexError, "Codex did not say which model thread \(threadId) uses; name one with model")
        }
        let sameModel = desks.plans.models[threadId]?.model == known
        return PlanDesk.ModelSettings(model: known, effort: effort ?? (sameModel ? desks.plans.models[threadId]?.effort : nil))
    }

    /// Keeps a turn's plan (`turn/plan/updated`); a failure to write is logged, the event still went out.
    func keepPlan(_ plan: TurnPlan, of threadId: String) {
        do {
            try storage.plans.save(plan, of: threadId)
        } catch {
            logger.warning("Cannot keep a turn's plan", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
        }
    }

    /// `readThread`'s answer: Codex's thread and what the bridge keeps beside it (goal, mode, plans, the running
    /// turn's text so far, the approvals and questions with their answers).
    func snapshot(of threadId: String, thread: JSONValue) async -> ThreadSnapshot {
        desks.plans.learn(thread: thread)
        let plans: [TurnPlan]
        do {
            plans = try storage.plans.plans(of: threadId)
        } catch {
            logger.warning("Cannot read a thread's plans", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
            plans = []
        }
        let goal = await goals(of: [threadId])[threadId]
        let agents = desks.subAgents.children(of: threadId).compactMap { child in
            desks.subAgents.agents[child].map {
                SubAgent(agentThreadId: child, status: $0.status?.rawValue, agentNickname: $0.nickname, agentRole: $0.role)
            }
        }
        var answer = ThreadSnapshot(
            thread: thread, goal: goal, collaborationMode: rememberedMode(of: threadId), plans: plans.isEmpty ? nil : plans,
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
