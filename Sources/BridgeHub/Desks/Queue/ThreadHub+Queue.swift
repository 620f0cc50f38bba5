import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Logging

/// Queue mode: `sendMessage {mode: "queue"}` while a turn runs holds the message (``MessageQueue``, and on disk,
/// ``QueuedMessageStore``), announces it (`messageQueued`, journaled, to every subscriber) and starts it as the
/// next turn when the running one ends (`messageUnqueued` `started` with the turn's id); `cancelQueued` takes it
/// back (`messageUnqueued` `cancelled`); `reorderQueued` and `editQueued` change the line. Every change is also
/// announced as the whole line (`queueChanged`, journaled). A user's message is data: when Codex stops, what is held waits for it
/// to come back; when the bridge restarts (kill -9 included), what was held is announced again (`messageQueued`)
/// and the oldest starts as soon as Codex runs and no turn does (the turn the restart interrupted counts as
/// ended). Only a message Codex refuses to start is reported `failed`.
extension ThreadHub {
    /// Holds `message` for `threadId` (the gate has passed it); → `accepted {threadId, queuedId}`.
    func queueMessage(_ message: SendMessage, policy turnPolicy: TurnPolicy, session: ClientSession) throws -> Accepted {
        let queuedId = "q-\(UUID().uuidString.prefix(13).lowercased())"
        let threadId = message.threadId
        let announcement = MessageQueued(
            seq: 0, threadId: threadId, queuedId: queuedId, text: message.text, model: message.model, effort: message.effort,
            attachments: message.attachments, collaborationMode: message.collaborationMode, deviceId: session.principal.deviceId)
        guard desks.queue.entries(of: threadId).count < desks.queue.maxPerThread else {
            throw HubError(.conflict, "thread \(threadId) already holds \(desks.queue.maxPerThread) queued messages")
        }
        publish(threadId: threadId) { seq in
            var numbered = announcement
            numbered.seq = seq
            try? self.desks.queue.enqueue(MessageQueue.Entry(announcement: numbered, policy: turnPolicy))
            self.queueKeeper.keep(MessageQueue.Entry(announcement: numbered, policy: turnPolicy))
            return .messageQueued(numbered)
        }
        publishQueue(of: threadId)
        session.logger.info("Message queued", metadata: ["bridge.thread.id": "\(threadId)", "bridge.queue.id": "\(queuedId)"])
        return Accepted(threadId: threadId, queuedId: queuedId)
    }

    /// `cancelQueued`: takes the message out of the line, forgets it on disk and announces it, in one step.
    func cancelQueued(_ queuedId: String, on threadId: String) throws {
        guard desks.queue.cancel(queuedId, on: threadId) != nil else { throw MessageQueue.notWaiting(queuedId, on: threadId) }
        unqueued(threadId, queuedId, reason: .cancelled)
    }

    /// `reorderQueued`: the line in the order of `ids`, which must name every waiting message once (`conflict`
    /// naming those that wait now, else).
    func reorderQueued(_ ids: [String], on threadId: String) throws {
        do {
            try desks.queue.reorder(ids, on: threadId)
        } catch {
            let waiting = desks.queue.entries(of: threadId).map { String($0.queuedId.prefix(64)) }
            throw HubError(
                .conflict,
                "ids must name every message waiting on thread \(threadId) once; waiting now: [\(waiting.joined(separator: ", "))]")
        }
        lineChanged(of: threadId)
    }

    /// `editQueued`: a waiting message's new text, kept and announced in the step that finds it waiting.
    func editQueued(_ queuedId: String, on threadId: String, text: String) throws {
        guard desks.queue.edit(queuedId, on: threadId, text: text) != nil else { throw MessageQueue.notWaiting(queuedId, on: threadId) }
        lineChanged(of: threadId)
    }

    /// The thread's line changed in place (reordered, edited): kept on disk and announced.
    func lineChanged(of threadId: String) {
        queueKeeper.keepLine(of: threadId, desks.queue.entries(of: threadId))
        publishQueue(of: threadId)
    }

    /// Announces the thread's whole line as it is now (`queueChanged`); remembered for a client that subscribes
    /// later.
    func publishQueue(of threadId: String) {
        publish(threadId: threadId) { seq in
            let changed = QueueChanged(seq: seq, threadId: threadId, items: self.desks.queue.items(of: threadId))
            self.desks.queue.changes[threadId] = changed.items.isEmpty ? nil : changed
            return .queueChanged(changed)
        }
    }

    /// A turn of `threadId` ended: starts its next queued message, if any.
    func turnEnded(_ threadId: String, turnId: String? = nil) {
        guard let entry = desks.queue.next(for: threadId, endedTurn: turnId) else { return }
        background.start { await self.startQueued(entry) }
    }

    /// Codex runs (again): every thread holding messages and running no turn starts its next one.
    func startWaitingMessages() {
        for threadId in desks.queue.threadsWaiting where book.runningTurn(of: threadId) == nil {
            turnEnded(threadId)
        }
    }

    private func startQueued(_ entry: MessageQueue.Entry) async {
        let message = entry.announcement
        do {
            try await ensureLoaded(message.threadId, policy: entry.policy)
            let turnId = try await plans.startTurn(
                TurnStart(
                    threadId: message.threadId, text: message.text, policy: entry.policy, model: message.model, effort: message.effort,
                    extraInput: try attachments.inputs(message.attachments), collaborationMode: message.collaborationMode))
            attachments.claim(message.attachments, for: message.threadId)
            unqueued(message.threadId, message.queuedId, reason: .started, turnId: turnId)
            // Its turn may be over already (it ended before Codex answered turn/start): then the next one follows.
            if desks.queue.finishedStarting(message.threadId, turnId: turnId) { turnEnded(message.threadId) }
        } catch {
            if RequestFailure.codexIsAway(error) {
                // Not the message's fault: it waits, first in line, for Codex to come back.
                logger.notice("A queued message waits for Codex", metadata: ["bridge.thread.id": "\(message.threadId)"])
                desks.queue.putBack(entry)
                return
            }
            let reason = (error as? HubError)?.message ?? (error as? CodexError)?.message ?? "\(error)"
            logger.warning(
                "A queued message could not start", metadata: ["bridge.thread.id": "\(message.threadId)", "error": "\(reason)"])
            unqueued(message.threadId, message.queuedId, reason: .failed, message: reason)
            desks.queue.finishedStarting(message.threadId)
            // Nothing runs now: the next one gets its chance.
            if book.runningTurn(of: message.threadId) == nil { turnEnded(message.threadId) }
        }
    }

    func unqueued(_ threadId: String, _ queuedId: String, reason: UnqueueReason, turnId: String? = nil, message: String? = nil) {
        queueKeeper.forget(queuedId)
        publish(threadId: threadId) { seq in
            .messageUnqueued(
                MessageUnqueued(seq: seq, threadId: threadId, queuedId: queuedId, reason: reason, turnId: turnId, message: message))
        }
        publishQueue(of: threadId)
    }

    /// What a client that subscribes late (or reconnects without a resume) must see: open questions and held
    /// messages of `threadId` (`*`: all).
    func sendPendingExtras(to session: ClientSession, on threadId: String) {
        for message in desks.pendingExtras(on: threadId) { session.send(message) }
        // A fleet session: the linked machines' open approvals and questions too.
        if events.fanOut.isFleet(session.id) {
            for text in relayedPending.frames(on: threadId) { session.sendEncoded(text) }
        }
    }
}
