import BridgeProtocol
import BridgeStore
import Foundation
import Logging

/// Journal, resume and delivery.
///
/// The seam between replay and live delivery: a subscription is added and its seam (`lastSeq`) captured in
/// one actor step, together with a *hold* on the session. From then on every published message (seq > seam)
/// is journaled and appended to the session's held frames instead of its outbox; the replay reads the
/// journal for `(cursor, seam]` page by page (the journal is written before delivery, so every seq ≤ seam is
/// there) and queues it; then the held frames are queued and the hold released. No message can be both
/// replayed (≤ seam) and live (> seam), and none can fall between.
extension ThreadHub {
    /// A replay to run for one session.
    struct Replay {
        var after: Int64
        var through: Int64
        /// nil: every thread.
        var threads: Set<String>?
        /// Whether messages relayed from linked machines are replayed too (a fleet session).
        var relayed = false
    }

    /// Journal rows read per page during a replay.
    static let replayPageSize = 1024
    /// Held live frames beyond this close the session as a slow reader (its outbox would overflow too).
    static let maxHeldFrames = 4096
    /// A replay waits while the session has more frames than this queued (the client reads slowly).
    static let replayHighWater = 2048

    // MARK: Recovery

    struct Recovery {
        var lastSeq: Int64
        var threads: Set<String>
        /// Messages still queued, announced again (their `seq` the new announcement's).
        var requeued: [QueuedMessageStore.Entry] = []
        /// The line of each thread holding `requeued` messages, announced again (`queueChanged`).
        var queueChanges: [String: QueueChanged] = [:]
    }

    /// Reads the journal's last seq and journals the end of every turn and approval left open by the previous
    /// run.
    static func recover(_ journal: EventJournal, keptQueued: [QueuedMessageStore.Entry] = [], logger: Logger) throws -> Recovery {
        var seq = try journal.lastSeq()
        var entries: [JournalEntry] = []
        var threads: Set<String> = []
        let encoder = ServerMessage.defaultEncoder
        func add(_ message: ServerMessage, threadId: String) throws {
            let text = String(decoding: try message.encoded(encoder: encoder), as: UTF8.self)
            entries.append(entry(for: message, text: text, threadId: threadId))
        }
        for (threadId, turnId) in try journal.openTurns() {
            seq += 1
            threads.insert(threadId)
            let data: JSONValue = ["threadId": .string(threadId), "turnId": .string(turnId), "reason": "bridge restarted"]
            try add(
                .event(ThreadEvent(seq: seq, threadId: threadId, turnId: turnId, type: "bridge/turnFailed", data: data)), threadId: threadId
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
        return Recovery(lastSeq: seq, threads: threads, requeued: requeued, queueChanges: queueChanges)
    }

    /// Resumes the threads whose turns the previous run left open, so Codex knows them again.
    func resumeRecoveredThreads() {
        for threadId in book.takeRecovered() {
            background.start { await self.resumeRecovered(threadId) }
        }
    }

    private func resumeRecovered(_ threadId: String) async {
        do {
            let facts = try await threadFacts(threadId)
            guard case .allowed(_, let turnPolicy) = gate.admitThread(facts) else { return }
            try await ensureLoaded(threadId, policy: turnPolicy ?? gate.defaults)
        } catch {
            logger.notice("Cannot resume a thread of the previous run", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
        }
    }

    // MARK: Journal and delivery

    static func entry(for message: ServerMessage, text: String, threadId: String) -> JournalEntry {
        switch message {
        case .event(let event):
            JournalEntry(seq: event.seq, threadId: threadId, kind: message.kind, type: event.type, turnId: event.turnId, text: text)
        case .approvalRequest(let request):
            JournalEntry(
                seq: request.seq, threadId: threadId, kind: message.kind, turnId: request.turnId, approvalId: request.approvalId, text: text
            )
        case .approvalResolved(let resolved):
            JournalEntry(seq: resolved.seq, threadId: threadId, kind: message.kind, approvalId: resolved.approvalId, text: text)
        // Questions and queued messages keep their id in the approvalId column (see `recover`).
        case .inputRequest(let request):
            JournalEntry(
                seq: request.seq, threadId: threadId, kind: message.kind, turnId: request.turnId, approvalId: request.requestId, text: text)
        case .inputResolved(let resolved):
            JournalEntry(seq: resolved.seq, threadId: threadId, kind: message.kind, approvalId: resolved.requestId, text: text)
        case .messageQueued(let queued):
            JournalEntry(seq: queued.seq, threadId: threadId, kind: message.kind, approvalId: queued.queuedId, text: text)
        case .messageUnqueued(let unqueued):
            JournalEntry(seq: unqueued.seq, threadId: threadId, kind: message.kind, approvalId: unqueued.queuedId, text: text)
        // A command's run id too.
        case .commandStarted(let started):
            JournalEntry(seq: started.seq, threadId: threadId, kind: message.kind, approvalId: started.runId, text: text)
        case .commandExited(let exited):
            JournalEntry(seq: exited.seq, threadId: threadId, kind: message.kind, approvalId: exited.runId, text: text)
        default:
            JournalEntry(seq: message.seq ?? 0, threadId: threadId, kind: message.kind, text: text)
        }
    }

    /// Queues a live frame for a session, or holds it while the session's replay runs.
    func deliver(_ text: String, to id: UInt64) {
        apply(events.fanOut.deliver(text, to: id))
    }

    func beginHold(_ id: UInt64) {
        events.fanOut.hold(id)
    }

    /// Ends one hold; the last one queues the held frames.
    func endHold(_ id: UInt64) {
        apply(events.fanOut.release(id))
    }

    /// Does what the fan-out decided. A session whose outbox overflows gets nothing more (its outbox refuses
    /// everything after a dropped frame, and the connection closes it as a slow reader).
    func apply(_ actions: [FanOut.Action]) {
        // Each session's frames, in order, queued with one lock (and at most one wake of its event loop).
        var frames: [UInt64: [String]] = [:]
        var order: [UInt64] = []
        for action in actions {
            switch action {
            case .send(let text, let id):
                if frames[id] == nil { order.append(id) }
                frames[id, default: []].append(text)
            case .closeSlowReader(let id):
                frames[id] = nil
                sessions.removeValue(forKey: id)?.session.closeAsSlowReader()
            }
        }
        for id in order {
            guard let texts = frames[id], let session = sessions[id]?.session else { continue }
            session.sendEncoded(contentsOf: texts)
            events.delivered(to: id)
        }
    }

    /// Whether every journaled message after `cursor` is still there.
    func resumeStatus(after cursor: Int64) -> ResumeStatus {
        events.resumeStatus(after: cursor, prunedThrough: (try? storage.journal.prunedThrough()) ?? .max)
    }

    // MARK: Sessions

    /// Registers a session: restores its remembered subscriptions and, when it resumes, captures the seam and
    /// holds its live frames until ``replayPending(_:)`` has replayed the journal.
    func open(_ session: ClientSession) async -> SessionOpening {
        let key = ClientMemory.key(deviceId: session.principal.deviceId, clientId: session.hello.clientId)
        var restored: [String] = []
        // A device that may not observe gets no events: its remembered subscriptions wait until it may again.
        if let key, session.scopes.contains(.observe) {
            do {
                restored = try await storage.memory.subscriptions(of: key)
            } catch {
                session.logger.warning("Cannot read remembered subscriptions", metadata: ["error": "\(error)"])
            }
        }
        // From here to the return nothing suspends: subscriptions, seam and hold are taken in one step.
        sessions[session.id] = SessionState(session: session, clientKey: key)
        let fleet = session.hello.fleet == true
        if fleet { events.fanOut.joinFleet(session.id) }
        // Nothing reaches the session before its helloAck: live frames wait until `replayPending`.
        beginHold(session.id)
        let seam = events.lastSeq
        var status: ResumeStatus?
        if let cursor = session.hello.resume?.lastSeq {
            status = resumeStatus(after: cursor)
            if status == .ok, !restored.isEmpty, cursor < seam {
                beginHold(session.id)
                sessions[session.id]?.pendingReplay = Replay(
                    after: cursor, through: seam, threads: restored.contains("*") ? nil : Set(restored), relayed: fleet)
            }
        }
        for threadId in restored {
            subscribe(session, to: threadId, sendPendingApprovals: false)
        }
        if status != .ok, !restored.isEmpty { sessions[session.id]?.approvalsAfterAck = true }
        return SessionOpening(
            lastSeq: seam, resume: status, restoredSubscriptions: key == nil ? nil : restored, policy: gate.clientPolicy)
    }

    /// Runs the replay asked for in the hello, after the helloAck was queued.
    /// Runs right after the session's helloAck was queued: the replay it asked for, then the approvals still
    /// pending on its restored subscriptions (when it did not resume), then the live frames held meanwhile.
    func replayPending(_ session: ClientSession) async {
        if let replay = sessions[session.id]?.pendingReplay {
            sessions[session.id]?.pendingReplay = nil
            await runReplay(replay, to: session)
            endHold(session.id)
        }
        if sessions[session.id]?.approvalsAfterAck == true {
            sessions[session.id]?.approvalsAfterAck = false
            for request in desks.approvals.inOrder where events.fanOut.covers(session.id, request.threadId) {
                session.send(.approvalRequest(request))
            }
            if events.fanOut.covers(session.id, "*") {
                sendPendingExtras(to: session, on: "*")
            } else {
                for threadId in events.fanOut.threads(of: session.id).sorted() { sendPendingExtras(to: session, on: threadId) }
            }
        }
        endHold(session.id)
    }

    /// Subscribes with an optional resume cursor: replays `(afterSeq, seam]` of the subscription before the
    /// answer is returned. Returns the answer's facts.
    func subscribeResuming(_ session: ClientSession, to threadId: String, afterSeq: Int64?) async -> SubscriptionChanged {
        let seam = events.lastSeq
        let status = afterSeq.map { resumeStatus(after: $0) }
        subscribe(session, to: threadId, sendPendingApprovals: status != .ok)
        if let afterSeq, status == .ok, afterSeq < seam {
            beginHold(session.id)
            let replay = Replay(
                after: afterSeq, through: seam, threads: threadId == "*" ? nil : [threadId], relayed: events.fanOut.isFleet(session.id))
            await runReplay(replay, to: session)
            endHold(session.id)
        }
        await remember(session, subscribedTo: threadId, true)
        return SubscriptionChanged(threadId: threadId, resume: status, lastSeq: seam)
    }

    /// Records (or forgets) a subscription in the client's memory.
    func remember(_ session: ClientSession, subscribedTo threadId: String, _ subscribed: Bool) async {
        guard let key = sessions[session.id]?.clientKey else { return }
        let memory = storage.memory
        do {
            if subscribed {
                try await memory.subscribe(key, to: threadId)
            } else {
                try await memory.unsubscribe(key, from: threadId)
            }
        } catch {
            session.logger.warning("Cannot remember a subscription", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
        }
    }

    /// Runs a replay after the session's earlier ones.
    func runReplay(_ replay: Replay, to session: ClientSession) async {
        let previous = work.replayTails[session.id]
        let task = Task {
            await previous?.value
            await self.replayJournal(replay, to: session)
        }
        work.replayTails[session.id] = task
        await task.value
        if work.replayTails[session.id] == task { work.replayTails[session.id] = nil }
    }

    /// Queues the journaled messages of `replay` page by page, waiting while the client has many frames queued.
    private func replayJournal(_ replay: Replay, to session: ClientSession) async {
        let journal = storage.journal
        var cursor = replay.after
        var sent = 0
        while cursor < replay.through, sessions[session.id] != nil {
            let page: [(seq: Int64, text: String)]
            do {
                page = try await journal.readFrames(
                    after: cursor, through: replay.through, threads: replay.threads, relayed: replay.relayed, limit: Self.replayPageSize)
            } catch {
                session.logger.error("Cannot read the journal; closing so that the client resumes", metadata: ["error": "\(error)"])
                session.closeAsSlowReader()
                return
            }
            guard let last = page.last else { break }
            for entry in page {
                guard session.sendEncoded(entry.text) else { return }
            }
            sent += page.count
            cursor = last.seq
            await session.waitUntilQueued(atMost: Self.replayHighWater)
        }
        session.logger.debug(
            "Replayed",
            metadata: [
                "bridge.replay.after": "\(replay.after)", "bridge.replay.through": "\(replay.through)", "bridge.replay.count": "\(sent)",
            ])
    }
}
