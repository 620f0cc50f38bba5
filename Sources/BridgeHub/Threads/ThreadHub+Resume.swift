import BridgePreview
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
        // Each session's frames, in order, queued with one lock (and at most one wake of its event loop). A run of
        // frames for the session of the frame before (one subscriber: every frame) is found without hashing.
        var runs: [(id: UInt64, texts: [String])] = []
        var runOf: [UInt64: Int] = [:]
        for action in actions {
            switch action {
            case .send(let text, let id):
                if let last = runs.indices.last, runs[last].id == id {
                    runs[last].texts.append(text)
                } else if let run = runOf[id] {
                    runs[run].texts.append(text)
                } else {
                    runOf[id] = runs.count
                    runs.append((id, [text]))
                }
            case .closeSlowReader(let id):
                if let run = runOf[id] { runs[run].texts = [] }
                sessions.removeValue(forKey: id)?.session.closeAsSlowReader()
            }
        }
        for (id, texts) in runs where !texts.isEmpty {
            guard let session = sessions[id]?.session else { continue }
            session.sendEncoded(contentsOf: texts)
            events.delivered(to: id)
        }
    }

    /// Whether every journaled message after `cursor` is still there (`relayed`: the linked machines' too, whose
    /// shares are pruned apart).
    func resumeStatus(after cursor: Int64, relayed: Bool) -> ResumeStatus {
        events.resumeStatus(after: cursor, prunedThrough: (try? storage.journal.prunedThrough(relayed: relayed)) ?? .max)
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
            status = resumeStatus(after: cursor, relayed: fleet)
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
            lastSeq: seam, resume: status, restoredSubscriptions: key == nil ? nil : restored, policy: gate.clientPolicy,
            previewPort: previews?.port)
    }

    /// Runs right after the session's helloAck was queued: the replay it asked for, then the approvals still
    /// pending on its restored subscriptions (when it did not resume), then the live frames held meanwhile.
    func replayPending(_ session: ClientSession) async {
        if let replay = sessions[session.id]?.pendingReplay {
            sessions[session.id]?.pendingReplay = nil
            await replays.run(replay, to: session, at: replays.enter(session.id))
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

    /// A subscription's step (``Subscriber``): the subscription is added and its seam captured together, with the
    /// session's live frames held and its place in its replay line taken when it asked to resume from a cursor the
    /// journal still holds (the caller replays `(afterSeq, seam]`, then ends the hold). `madeIt`: the session made
    /// the thread (not counted against its limit; no replay when it follows `*`).
    func beginSubscription(_ session: ClientSession, to threadId: String, afterSeq: Int64?, madeIt: Bool) throws -> SubscriptionStart {
        if !madeIt, threadId != "*" { try checkSubscriptionCount(session) }
        let afterSeq = madeIt && events.fanOut.covers(session.id, "*") ? nil : afterSeq
        let seam = events.lastSeq
        let status = afterSeq.map { resumeStatus(after: $0, relayed: events.fanOut.isFleet(session.id)) }
        subscribe(session, to: threadId, sendPendingApprovals: status != .ok)
        var start = SubscriptionStart(changed: SubscriptionChanged(threadId: threadId, resume: status, lastSeq: seam))
        if let afterSeq, status == .ok, afterSeq < seam {
            beginHold(session.id)
            let replay = Replay(
                after: afterSeq, through: seam, threads: threadId == "*" ? nil : [threadId], relayed: events.fanOut.isFleet(session.id))
            start.replay = (replay, replays.enter(session.id))
        }
        return start
    }

    /// A retried `startThread` or `forkThread` subscribes the retrying session to the first attempt's thread, if it
    /// is still open; false when it closed.
    func subscribeRetrying(_ session: ClientSession, to threadId: String) -> Bool {
        guard sessions[session.id] != nil else { return false }
        subscribe(session, to: threadId)
        return true
    }

    /// The key of `session`'s client in the client memory (nil: closed, or a client that is not remembered).
    func clientKey(of session: ClientSession) -> String? { sessions[session.id]?.clientKey }
}

/// What a subscription's step decided (``ThreadHub/beginSubscription(_:to:afterSeq:madeIt:)``).
struct SubscriptionStart: Sendable {
    /// The answer's facts.
    var changed: SubscriptionChanged
    /// The replay it asked for, with its place in the session's line; the session's live frames are held until it ran.
    var replay: (Replay, SessionReplays.Turn)?
}
