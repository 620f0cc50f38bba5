import BridgeProtocol
import BridgeStore
import CodexControl
import Logging

extension ThreadHub {
    /// A delta read without a params tree (``CodexRelayedNotification``): numbered, journaled and sent with
    /// Codex's params text as `data`, exactly as ``notification(method:params:paramsJSON:)`` would (same seq,
    /// same journal row, same frame), minus the work a delta never needs (turn bookkeeping, push). On a
    /// shared app-server every notification takes the full path (the tracker reads the params).
    func relayed(_ note: CodexRelayedNotification) {
        if codex.isShared || !events.relayFrame.relaysAsIs(note.method) {
            notification(method: note.method, params: note.params, paramsJSON: note.paramsJSON)
            return
        }
        let threadId = note.threadId
        if commitMessages.isOwn(threadId) { return }  // the bridge's own (CommitMessageWriter)
        // A thread the hub knows stays known (entries are never removed): look it up once per run of its deltas.
        if threadId != events.relayFrame.knownThread {
            book.know(threadId, generation: generation)
            events.relayFrame.knownThread = threadId
        }
        let seq = events.nextSeq()
        let text = events.relayFrame.text(seq: seq, threadId: threadId, turnId: note.turnId, type: note.method, dataJSON: note.paramsJSON)
        BridgeMetrics.shared.eventRelayed()
        let entry = JournalEntry(seq: seq, threadId: threadId, kind: "event", type: note.method, turnId: note.turnId, text: text)
        // Outside a batch (not how `run()` calls it) it is written now, as `publish` does.
        if let now = events.publish(entry, text: text, threadId: threadId) { write(now) }
    }
}

extension ThreadHub {
    /// After a batch: waits (at most `limit` in all, ``DeliveryPacing/limit`` after Codex's) while an outbox that
    /// just got frames is more than half full, until it is down to a quarter (see ``DeliveryPacing``). The wait
    /// ends when the outbox has room, not on a polling tick.
    func paceDelivery(limit: Duration = DeliveryPacing.limit) async {
        let targets = events.takePaced()
        guard !targets.isEmpty else { return }
        let deadline = ContinuousClock.now.advanced(by: limit)
        for id in targets {
            guard let session = sessions[id]?.session, session.sink.count > session.sink.capacity / 2 else { continue }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return }
            let sink = session.sink
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await sink.waitUntilQueued(atMost: sink.capacity / 4) }
                group.addTask { try? await Task.sleep(for: left) }
                await group.next()
                group.cancelAll()
            }
        }
    }
}
