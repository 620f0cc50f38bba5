import BridgeProtocol
import BridgeStore
import Foundation
import Logging

/// What a hub opening its journal takes over from the previous run: the seq to continue after, the threads it
/// ran, and its still-queued messages, the ends of whatever it left open (turns, approvals, questions, commands)
/// journaled first, so every client learns they are over.
struct JournalRecovery {
    var lastSeq: Int64
    var threads: Set<String>
    /// Messages still queued, announced again (their `seq` the new announcement's).
    var requeued: [QueuedMessageStore.Entry] = []
    /// The line of each thread holding `requeued` messages, announced again (`queueChanged`).
    var queueChanges: [String: QueueChanged] = [:]

    /// Reads the journal's last seq and journals the end of every turn and approval left open by the previous
    /// run.
    static func read(_ journal: EventJournal, keptQueued: [QueuedMessageStore.Entry] = [], logger: Logger) throws -> JournalRecovery {
        var seq = try journal.lastSeq()
        var entries: [JournalEntry] = []
        var threads: Set<String> = []
        let encoder = ServerMessage.defaultEncoder
        func add(_ message: ServerMessage, threadId: String) throws {
            let text = String(decoding: try message.encoded(encoder: encoder), as: UTF8.self)
            entries.append(JournalEntry(message, text: text, threadId: threadId))
        }
        for (threadId, turnId) in try journal.openTurns() {
            seq += 1
            threads.insert(threadId)
            let data = BridgeTurnEvent.failedData(threadId: threadId, turnId: turnId, reason: "bridge restarted")
            try add(
                .event(ThreadEvent(seq: seq, threadId: threadId, turnId: turnId, type: BridgeTurnEvent.failed, data: data)),
                threadId: threadId
            )
        }
        for (threadId, approvalId) in try journal.openApprovals() {
            seq += 1
            try add(
                .approvalResolved(ApprovalResolved(seq: seq, approvalId: approvalId, threadId: threadId, decision: .cancel)),
                threadId: threadId)
        }
        for (threadId, requestId) in try journal.openEntries(opened: "inputRequest", closed: "inputResolved") {
            seq += 1
            try add(.inputResolved(InputResolved(seq: seq, requestId: requestId, threadId: threadId, action: .cancel)), threadId: threadId)
        }
        let kept = Set(keptQueued.map(\.announcement.queuedId))
        var requeued: [QueuedMessageStore.Entry] = []
        for var entry in keptQueued {
            seq += 1
            entry.announcement.seq = seq
            threads.insert(entry.announcement.threadId)
            try add(.messageQueued(entry.announcement), threadId: entry.announcement.threadId)
            requeued.append(entry)
        }
        var queueChanges: [String: QueueChanged] = [:]
        for threadId in requeued.map(\.announcement.threadId) where queueChanges[threadId] == nil {
            seq += 1
            let items = requeued.filter { $0.announcement.threadId == threadId }.map { QueuedItem($0.announcement) }
            queueChanges[threadId] = QueueChanged(seq: seq, threadId: threadId, items: items)
            try add(.queueChanged(QueueChanged(seq: seq, threadId: threadId, items: items)), threadId: threadId)
        }
        // Open in the journal but kept nowhere (a journal from before messages were kept): reported failed.
        for (threadId, queuedId) in try journal.openEntries(opened: "messageQueued", closed: "messageUnqueued")
        where !kept.contains(queuedId) {
            seq += 1
            try add(
                .messageUnqueued(
                    MessageUnqueued(seq: seq, threadId: threadId, queuedId: queuedId, reason: .failed, message: "bridge restarted")),
                threadId: threadId)
        }
        for (threadId, runId) in try journal.openEntries(opened: "commandStarted", closed: "commandExited") {
            seq += 1
            try add(
                .commandExited(CommandExited(seq: seq, threadId: threadId, runId: runId, exitCode: nil, reason: "bridge restarted")),
                threadId: threadId)
        }
        try journal.append(contentsOf: entries)
        if !entries.isEmpty {
            logger.notice(
                "Reported turns and approvals left open by the previous run", metadata: ["bridge.journal.entries": "\(entries.count)"])
        }
        logger.info("Journal open", metadata: ["bridge.journal.lastSeq": "\(seq)"])
        return JournalRecovery(lastSeq: seq, threads: threads, requeued: requeued, queueChanges: queueChanges)
    }
}
