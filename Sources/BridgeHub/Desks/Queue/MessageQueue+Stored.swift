import BridgeProtocol
import BridgeStore

/// A held message as the queue keeps it in memory and as ``QueuedMessageStore`` keeps it on disk (the policy's
/// two halves side by side), one way and the other.
extension MessageQueue.Entry {
    init(stored: QueuedMessageStore.Entry) {
        self.init(announcement: stored.announcement, policy: TurnPolicy(sandbox: stored.sandbox, approvalPolicy: stored.approvalPolicy))
    }

    var stored: QueuedMessageStore.Entry {
        QueuedMessageStore.Entry(announcement: announcement, sandbox: policy.sandbox, approvalPolicy: policy.approvalPolicy)
    }
}
