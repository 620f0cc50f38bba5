import BridgeStore
import Logging

/// The policy each thread runs with, as this bridge remembers it across restarts (``ThreadPolicyStore``), in the
/// hub's terms (``TurnPolicy``): the ``ThreadBook`` holds it for this run, this keeps it for the next one.
struct ThreadPolicyKeeper: Sendable {
    let store: ThreadPolicyStore
    let logger: Logger

    /// Remembers `policy` for `threadId`; a failure is logged (this run still holds it), never the request's.
    func remember(_ policy: TurnPolicy, of threadId: String) async {
        do {
            try await store.remember(.init(sandbox: policy.sandbox, approvalPolicy: policy.approvalPolicy), for: threadId)
        } catch {
            logger.warning("Cannot remember a thread's policy", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
        }
    }

    /// The policy remembered for `threadId`; nil when none is (or it cannot be read: the gate then asks for one).
    func policy(of threadId: String) async -> TurnPolicy? {
        guard let stored = try? await store.entry(for: threadId) else { return nil }
        return TurnPolicy(sandbox: stored.sandbox, approvalPolicy: stored.approvalPolicy)
    }
}
