import BridgeProtocol
import CodexControl
import Logging

/// `forkThread` (Codex `thread/fork`). The gate has admitted the source thread (its directory inside the roots);
/// the fork runs in that directory with the source's policy (as the gate allows it now) and is remembered like a
/// thread this bridge started.
struct ForkRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.forkThread) { (services, fork: ForkThread, context) in
            .threadForked(
                try await Self.fork(fork, cwd: context.directory, policy: context.policy, session: context.session, with: services))
        }
    }

    static func fork(
        _ fork: ForkThread, cwd: String, policy turnPolicy: TurnPolicy, session: ClientSession, with services: HubServices
    ) async throws -> ThreadForked {
        if let turnId = fork.turnId {
            guard !turnId.isEmpty, turnId.utf8.count <= RequestLimits.maxThreadIdBytes else {
                throw HubError(.badRequest, "turnId must be 1 to \(RequestLimits.maxThreadIdBytes) bytes")
            }
            if await services.hub.runningTurn(of: fork.threadId) == turnId {
                throw HubError(.conflict, "turn \(turnId) is still running; fork through an ended turn")
            }
        }
        let before = await services.hub.lastSeq
        let result: JSONValue
        do {
            result = try await services.codex.threadFork(
                threadId: fork.threadId, cwd: cwd, sandbox: turnPolicy.sandbox, approvalPolicy: turnPolicy.approvalPolicy,
                throughTurn: fork.turnId, timeout: services.policy.codexTimeout)
        } catch let error as CodexError where error.code == .rpc && fork.turnId != nil {
            throw HubError(.badRequest, "cannot fork through turn \(fork.turnId?.prefix(64) ?? ""): \(error.message)")
        }
        guard let threadId = result["thread"]?["id"]?.stringValue else {
            throw HubError(.codexError, "thread/fork answered without a thread")
        }
        await services.hub.adopt(thread: threadId, cwd: cwd, policy: turnPolicy)
        await services.threadPolicies.remember(turnPolicy, of: threadId)
        _ = try await Subscriber(services: services).subscribe(session, to: threadId, afterSeq: before, madeIt: true)
        session.logger.info("Thread forked", metadata: ["bridge.thread.id": "\(threadId)", "bridge.thread.source": "\(fork.threadId)"])
        return ThreadForked(threadId: threadId, forkedFrom: fork.threadId, cwd: cwd)
    }
}
