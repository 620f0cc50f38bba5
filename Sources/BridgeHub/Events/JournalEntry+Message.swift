import BridgeProtocol
import BridgeStore

/// A message as the journal keeps it: its seq, kind and the ids the journal's queries look up (a turn's, and an
/// approval's, question's, queued message's or command run's in the approvalId column; see ``JournalRecovery``).
extension JournalEntry {
    init(_ message: ServerMessage, text: String, threadId: String) {
        switch message {
        case .event(let event):
            self = JournalEntry(seq: event.seq, threadId: threadId, kind: message.kind, type: event.type, turnId: event.turnId, text: text)
        case .approvalRequest(let request):
            self = JournalEntry(
                seq: request.seq, threadId: threadId, kind: message.kind, turnId: request.turnId, approvalId: request.approvalId, text: text
            )
        case .approvalResolved(let resolved):
            self = JournalEntry(seq: resolved.seq, threadId: threadId, kind: message.kind, approvalId: resolved.approvalId, text: text)
        // Questions and queued messages keep their id in the approvalId column (see ``JournalRecovery``).
        case .inputRequest(let request):
            self = JournalEntry(
                seq: request.seq, threadId: threadId, kind: message.kind, turnId: request.turnId, approvalId: request.requestId, text: text)
        case .inputResolved(let resolved):
            self = JournalEntry(seq: resolved.seq, threadId: threadId, kind: message.kind, approvalId: resolved.requestId, text: text)
        case .messageQueued(let queued):
            self = JournalEntry(seq: queued.seq, threadId: threadId, kind: message.kind, approvalId: queued.queuedId, text: text)
        case .messageUnqueued(let unqueued):
            self = JournalEntry(seq: unqueued.seq, threadId: threadId, kind: message.kind, approvalId: unqueued.queuedId, text: text)
        // A command's run id too.
        case .commandStarted(let started):
            self = JournalEntry(seq: started.seq, threadId: threadId, kind: message.kind, approvalId: started.runId, text: text)
        case .commandExited(let exited):
            self = JournalEntry(seq: exited.seq, threadId: threadId, kind: message.kind, approvalId: exited.runId, text: text)
        default:
            self = JournalEntry(seq: message.seq ?? 0, threadId: threadId, kind: message.kind, text: text)
        }
    }
}
