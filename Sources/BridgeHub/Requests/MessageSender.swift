import BridgeProtocol
import CodexControl

/// `sendMessage`, beside the hub: queued when the thread is busy and the phone asked for that (one step of the
/// hub's port), else it steers the running turn (Codex's `expectedTurnId` refuses a turn that ended meanwhile:
/// then it starts a new one), else it starts a turn. Its thread's lane keeps another message, an interrupt or a
/// revert of the thread out until it is answered.
struct MessageSender {
    let services: HubServices

    func send(_ message: SendMessage, policy turnPolicy: TurnPolicy, session: ClientSession) async throws -> Accepted {
        guard !message.text.isEmpty else { throw HubError(.badRequest, "text must not be empty") }
        let hub = services.hub
        try await hub.refuseWhileShuttingDown()
        try await services.models.check(message.model, effort: message.effort)
        let extraInput = try services.attachments.inputs(message.attachments)
        try await services.ensureLoaded(message.threadId, policy: turnPolicy)
        if let queued = try await hub.queueIfBusy(message, policy: turnPolicy, session: session) { return queued }
        if let running = await hub.runningTurn(of: message.threadId) {
            do {
                let turnId = try await services.codex.turnSteer(
                    threadId: message.threadId, text: message.text, expectedTurnId: running, extraInput: extraInput,
                    timeout: services.policy.codexTimeout)
                services.attachments.claim(message.attachments, for: message.threadId)
                // A running turn keeps its mode; the thread's next turns take the one chosen here.
                if let mode = message.collaborationMode { services.plans.rememberMode(mode, of: message.threadId) }
                return Accepted(threadId: message.threadId, turnId: turnId)
            } catch let error as CodexError where error.code == .rpc {
                // The turn ended meanwhile: start a new one.
            }
        }
        let turnId = try await services.plans.startTurn(
            TurnStart(
                threadId: message.threadId, text: message.text, policy: turnPolicy, model: message.model, effort: message.effort,
                extraInput: extraInput, collaborationMode: message.collaborationMode))
        services.attachments.claim(message.attachments, for: message.threadId)
        if await hub.keepPolicy(turnPolicy, of: message.threadId) {
            await services.threadPolicies.remember(turnPolicy, of: message.threadId)
        }
        return Accepted(threadId: message.threadId, turnId: turnId)
    }
}
