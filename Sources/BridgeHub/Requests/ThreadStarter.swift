import BridgeGit
import BridgeProtocol
import CodexControl
import Logging

/// `startThread`, beside the hub: a new thread in the directory the gate admitted (or a new worktree of it), with
/// the policy the gate admitted, adopted by the hub and subscribed by its starter, and its first turn.
struct ThreadStarter {
    let services: HubServices

    func start(_ start: StartThread, cwd: String, policy turnPolicy: TurnPolicy, session: ClientSession) async throws
        -> ThreadStarted
    {
        guard !start.prompt.isEmpty else { throw HubError(.badRequest, "prompt must not be empty") }
        try await services.hub.refuseWhileShuttingDown()
        try await services.models.check(start.model, effort: start.effort)
        let extraInput = try services.attachments.inputs(start.attachments)
        var cwd = cwd
        if let worktree = start.worktree { cwd = try await services.git.worktreeDirectory(for: worktree, cwd: cwd) }
        let before = await services.hub.lastSeq
        let threadId = try await services.codex.threadStart(
            cwd: cwd, model: start.model, sandbox: turnPolicy.sandbox, approvalPolicy: turnPolicy.approvalPolicy,
            approvalsReviewer: start.approvalsReviewer?.rawValue, timeout: services.policy.codexTimeout
        )
        await services.hub.adopt(thread: threadId, cwd: cwd, policy: turnPolicy)
        await services.threadPolicies.remember(turnPolicy, of: threadId)
        services.plans.learn(threadId: threadId, model: start.model, effort: start.effort)
        // Codex may publish the thread's first events (thread/started) before it answers thread/start, i.e.
        // before anyone could subscribe: replay those from the journal so the starter sees the thread whole.
        _ = try await Subscriber(services: services).subscribe(session, to: threadId, afterSeq: before, madeIt: true)
        let turnId = try await services.plans.startTurn(
            TurnStart(
                threadId: threadId, text: start.prompt, policy: turnPolicy, effort: start.effort, extraInput: extraInput,
                collaborationMode: start.collaborationMode))
        services.attachments.claim(start.attachments, for: threadId)
        session.logger.info("Thread started", metadata: ["bridge.thread.id": "\(threadId)", "bridge.turn.id": "\(turnId)"])
        let worktree = start.worktree != nil ? await GitService.worktreeFacts(of: [cwd], roots: services.gate.roots).first ?? nil : nil
        return ThreadStarted(threadId: threadId, turnId: turnId, cwd: cwd, branch: worktree?.branch, worktreeOf: worktree?.worktreeOf)
    }
}
