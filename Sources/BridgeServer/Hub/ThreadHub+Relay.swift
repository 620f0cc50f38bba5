import BridgeProtocol
import CodexControl

extension ThreadHub {
    /// A delta read without a params tree (``CodexRelayedNotification``): numbered, journaled and sent with
    /// Codex's params text as `data`, exactly as ``notification(method:params:paramsJSON:)`` would, minus the
    /// work a delta never needs (turn bookkeeping, push). On a shared app-server every notification takes the
    /// full path (the tracker reads the params).
    func relayed(_ note: CodexRelayedNotification) {
        if codex.isShared {
            notification(method: note.method, params: note.params, paramsJSON: note.paramsJSON)
            return
        }
        let threadId = note.threadId
        if threads[threadId] == nil { threads[threadId] = ThreadState(loadedGeneration: generation) }
        publish(threadId: threadId, eventDataJSON: note.paramsJSON) { seq in
            .event(ThreadEvent(seq: seq, threadId: threadId, turnId: note.turnId, type: note.method, data: .null))
        }
    }
}
