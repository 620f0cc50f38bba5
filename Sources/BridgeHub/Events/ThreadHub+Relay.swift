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
        if codex.isShared || !relayFrame.relaysAsIs(note.method) {
            notification(method: note.method, params: note.params, paramsJSON: note.paramsJSON)
            return
        }
        let threadId = note.threadId
        if !ephemeralThreads.isEmpty, ephemeralThreads[threadId] != nil { return }  // the bridge's own (ThreadHub+CommitMessage)
        // A thread the hub knows stays known (entries are never removed): look it up once per run of its deltas.
        if threadId != relayFrame.knownThread {
            if threads[threadId] == nil { threads[threadId] = ThreadState(loadedGeneration: generation) }
            relayFrame.knownThread = threadId
        }
        lastSeq += 1
        let text = relayFrame.text(seq: lastSeq, threadId: threadId, turnId: note.turnId, type: note.method, dataJSON: note.paramsJSON)
        BridgeMetrics.shared.eventRelayed()
        let entry = JournalEntry(seq: lastSeq, threadId: threadId, kind: "event", type: note.method, turnId: note.turnId, text: text)
        if batch != nil {
            batch?.entries.append(entry)
            batch?.deliveries.append((text, threadId))
            return
        }
        // Outside a batch (not how `run()` calls it): journal, then deliver, as `publish` does.
        do {
            try storage.journal.append(entry)
        } catch {
            logger.error("Cannot write to the journal", metadata: ["bridge.seq": "\(entry.seq)", "error": "\(error)"])
        }
        apply(fanOut.publish(text, threadId: threadId))
    }
}

extension ThreadHub {
    /// After a batch: waits (at most ``DeliveryPacing/limit``) while an outbox that just got frames is more than
    /// half full, until it is down to a quarter (see ``DeliveryPacing``).
    func paceDelivery() async {
        let targets = pacing.take()
        guard !targets.isEmpty else { return }
        let deadline = ContinuousClock.now.advanced(by: DeliveryPacing.limit)
        for id in targets {
            guard let outbox = sessions[id]?.session.outbox, outbox.count > outbox.capacity / 2 else { continue }
            while outbox.count > outbox.capacity / 4, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
    }
}
