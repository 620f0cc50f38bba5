import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Logging

extension ThreadHub {
    /// A delta read without a params tree (``CodexRelayedNotification``): numbered, journaled and sent with
    /// Codex's params text as `data`, exactly as ``notification(_:)`` would (same seq, same journal row, same
    /// frame), minus the work a delta never needs (turn bookkeeping, push). A kind someone observes, one that is
    /// not journaled, and every notification on a shared app-server (the tracker reads the params) take the full
    /// path.
    func relayed(_ note: CodexRelayedNotification) {
        if codex.isShared || !events.relayFrame.relaysAsIs(note.kind) {
            notification(note.parsed)
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
        if let now = events.publish(entry) { write(now) }
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

    // MARK: Relay port (the fleet's links)

    /// What ``relay(_:from:budget:admit:)`` did with a batch.
    public struct RelayOutcome: Sendable, Hashable {
        /// Messages relayed.
        public var relayed: Int
        /// Why the link must be closed (`over_budget`: a message would have passed its ``LinkBudget``;
        /// `bad_frame`: an id too long for this bridge): it and the rest of the batch were not relayed; the linked
        /// machine keeps them and sends them again after a reconnect.
        public var refusal: WireError?
    }

    /// Journaled messages of a linked machine's threads, in that machine's seq order: each numbered in this
    /// bridge's journal with `machine` and its seq there (the link's resume cursor), all in one transaction,
    /// labelled `machine` and delivered to the fleet sessions that cover its thread. A message naming a thread this
    /// bridge runs itself is dropped (a linked machine cannot speak for this one's threads), and so is one `admit`
    /// refuses (it runs before anyone can see the message: the link records what the message makes that machine's
    /// there). A seq at or below the machine's highest one journaled here is dropped too: each message is journaled
    /// once (``RelayCursors``). An approval or question beyond the link's `budget` of open ones stops the batch
    /// (``RelayOutcome``); its approvals notify the phones at most as often as `budget` says.
    @discardableResult
    public func relay(
        _ frames: [RelayedFrame], from machine: MachineRef, budget: LinkBudget = .standard,
        admit: (ServerMessage) -> ServerMessage? = { $0 }
    ) async -> RelayOutcome {
        guard let label = try? String(decoding: encoder.encode(machine), as: UTF8.self) else { return RelayOutcome(relayed: 0) }
        events.beginBatch()
        var outcome = RelayOutcome(relayed: 0)
        for frame in frames {
            switch relayOne(frame, from: machine, label: label, budget: budget, admit: admit) {
            case .relayed: outcome.relayed += 1
            case .dropped: continue
            case .refused(let why): outcome.refusal = why
            }
            if outcome.refusal != nil { break }
        }
        flushBatch()
        // As after a batch of Codex's: a phone whose outbox filled gets time to drain before the link reads more
        // (the linked machine then waits on this link, as Codex waits on its pipe).
        await paceDelivery(limit: DeliveryPacing.relayLimit)
        return outcome
    }

    private enum RelayedOne {
        case relayed, dropped
        case refused(WireError)
    }

    /// The longest id (thread, turn, approval, question) a relayed message may carry, as for a client's requests.
    public static let maxRelayedIdBytes = RequestLimits.maxThreadIdBytes

    private func relayOne(
        _ frame: RelayedFrame, from machine: MachineRef, label: String, budget: LinkBudget, admit: (ServerMessage) -> ServerMessage?
    ) -> RelayedOne {
        let message = frame.message
        if let long = message.relayedIds.first(where: { $0.utf8.count > Self.maxRelayedIdBytes }) {
            return .refused(WireError(code: .badFrame, message: "\(message.kind) with an id of \(long.utf8.count) bytes"))
        }
        guard let remoteSeq = message.seq,
            relayCursors.isNew(remoteSeq, machine: machine.id, journaled: { try? storage.journal.relayCursor(machine: machine.id) }),
            let threadId = message.threadId, !book.knows(threadId), let message = admit(message)
        else {
            return .dropped
        }
        // Encoded under a seq not given out yet: a refused message leaves no hole in the numbering.
        let numbered = message.renumbered(events.lastSeq + 1)
        guard let text = try? numbered.encodedText(machineLabel: label, encoder: encoder, eventDataJSON: frame.eventDataJSON) else {
            return .dropped
        }
        if let why = relayedPending.refusal(numbered, machine: machine.id, bytes: text.utf8.count, budget: budget) {
            return .refused(WireError(code: .overBudget, message: why))
        }
        _ = events.nextSeq()
        relayCursors.advance(remoteSeq, machine: machine.id)
        var entry = JournalEntry(numbered, text: text, threadId: threadId)
        entry.machine = machine.id
        entry.remoteSeq = remoteSeq
        if let now = events.publish(entry) { write(now) }
        // What is still open reaches a fleet session that subscribes later (RelayedPending); approvals notify, as
        // often as the link's budget lets them (the withdrawal of one that notified always goes).
        var withdraws = false
        if case .approvalResolved(let resolved) = numbered { withdraws = relayedPending.isOpen(resolved.approvalId, machine: machine.id) }
        if let signal = relayedPending.observe(numbered, threadId: threadId, machine: machine.id, text: text),
            withdraws || relayNotices.allow(machine.id, budget: budget, now: .now)
        {
            push?.signal(signal)
        }
        return .relayed
    }

    /// Subscribes a fleet session to a linked machine's thread, replaying `(afterSeq, now]` from this bridge's
    /// journal first (the thread's facts live on that machine: its link checked them), beside the hub (``Subscriber``).
    public nonisolated func subscribeRelayed(_ session: ClientSession, to threadId: String, afterSeq: Int64?) async throws
        -> SubscriptionChanged
    {
        try RequestLimits.checkThreadId(threadId)
        return try await Subscriber(services: services).subscribe(session, to: threadId, afterSeq: afterSeq)
    }

    /// A machine was unlinked (or refused its link): its open approvals and questions are no longer offered.
    public func forgetRelayed(machine: String) {
        relayedPending.forget(machine: machine)
        relayNotices.forget(machine: machine)
        relayCursors.forget(machine: machine)
    }
}

extension ServerMessage {
    /// The ids a relayed message names (its thread, turn, approval or question).
    fileprivate var relayedIds: [String] {
        var ids = [threadId].compactMap { $0 }
        switch self {
        case .event(let event): ids += [event.turnId].compactMap { $0 }
        case .approvalRequest(let request): ids += [request.approvalId]
        case .approvalResolved(let resolved): ids += [resolved.approvalId]
        case .inputRequest(let request): ids += [request.requestId]
        case .inputResolved(let resolved): ids += [resolved.requestId]
        default: break
        }
        return ids
    }
}
