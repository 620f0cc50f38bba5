import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Logging

/// `serve --shared`: Codex is an app-server the terminal's Codex TUI uses too (``CodexPort/isShared``).
///
/// - Threads the TUI starts are announced to every connection (`thread/started`, `thread/status/changed`),
///   but their turn events and approvals reach only connections that resumed them, and Codex refuses the
///   resume until the first turn began. So when such a thread becomes active the hub resumes it — without a
///   sandbox or approval policy, so the terminal's own settings stay — reads it back (`thread/read`) to publish
///   what it missed, then relays it like its own threads: journaled, `"*"` subscribers included.
/// - The gate applies: a thread whose cwd is unknown (the TUI's helper threads) or outside the roots is neither
///   published nor resumed, and its approvals are left to the terminal.
/// - Approvals go to every connection on the thread and the first answer wins: when the terminal answers first
///   Codex sends `serverRequest/resolved`; the hub then reports `approvalResolved` with `answeredElsewhere`
///   once the item shows the outcome. The hub never answers a request it cannot relay (the TUI will).
extension ThreadHub {
    /// Whether to publish a notification of `threadId` on a shared app-server now (false: hidden by the gate, or
    /// held while the thread is resumed). Starts resumes as threads become active.
    func sharedNotification(method: String, params: JSONValue, paramsJSON: String?, threadId: String) -> Bool {
        if method == "thread/started", params["thread"]?["ephemeral"]?.boolValue == true { sharedThreads.ephemeral.insert(threadId) }
        guard !sharedThreads.ephemeral.contains(threadId) else { return false }
        // Not loaded here until this bridge starts or resumes it.
        book.know(threadId, cwd: params["thread"]?["cwd"]?.stringValue, generation: ThreadBook.notLoaded)
        guard let cwd = book[threadId]?.cwd else {
            // A thread announced before this bridge connected (or a helper thread with no cwd): learn its cwd.
            if method == "thread/status/changed" { discoverSharedThread(threadId) }
            return false
        }
        guard gate.shows(cwd: cwd) else { return false }
        if method == "serverRequest/resolved" { approvalAnsweredElsewhere(params) }
        if method == "item/completed", let itemId = params["item"]?["id"]?.stringValue,
            let answered = sharedThreads.answeredElsewhere.removeValue(forKey: itemId)
        {
            publishAnsweredElsewhere(answered, decision: SharedThreadTracker.decision(ofCompleted: params["item"]))
        }
        if method == "turn/completed" {
            for (itemId, answered) in sharedThreads.answeredElsewhere where answered.threadId == threadId {
                sharedThreads.answeredElsewhere[itemId] = nil
                publishAnsweredElsewhere(answered, decision: .cancel)
            }
        }
        if sharedThreads.entries[threadId]?.follow != .resuming,
            let start = sharedThreads.missingTurnStart(threadId: threadId, method: method, params: params)
        {
            publishBackfilled(threadId: threadId, event: ("turn/started", start.turnId, start.data))
        }
        if method == "turn/completed", sharedThreads.entries[threadId]?.catchUpAtTurnEnd == true,
            sharedThreads.entries[threadId]?.follow == .following(generation: generation)
        {
            // Followed mid-turn: read the thread again before its end is published (this notification is held).
            sharedThreads.beginCatchUp(threadId)
            let generation = self.generation
            background.start { await self.completeCatchUp(threadId, generation: generation) }
        }
        let publishNow = sharedThreads.note(threadId: threadId, method: method, params: params, paramsJSON: paramsJSON)
        if sharedThreads.wantsResume(threadId, generation: generation), !book.isLoaded(threadId, in: generation) {
            followSharedThread(threadId)
        }
        return publishNow
    }

    /// Whether to relay a server request on a shared app-server (false: leave it to the other clients).
    func sharedRelays(method: String, threadId: String?) -> Bool {
        guard ApprovalMapping.type(of: method) != nil, let threadId, let cwd = book[threadId]?.cwd else { return false }
        return gate.shows(cwd: cwd)
    }

    /// On every connection: resumes the threads this bridge followed or drove in the previous connection, so
    /// their turns reach the phone again (publishing what they did meanwhile), and the threads inside the roots
    /// that other clients are running right now (started before this bridge connected).
    func resumeSharedThreads(previousGeneration: Int) {
        for (threadId, cwd) in book.loaded(in: previousGeneration) where previousGeneration > 0 && gate.shows(cwd: cwd) {
            _ = sharedThreads.endResume(threadId, following: nil)
            followSharedThread(threadId)
        }
        let generation = self.generation
        background.start { await self.followThreadsActiveElsewhere(generation: generation) }
    }

    /// Follows the threads inside the roots that other clients run right now.
    private func followThreadsActiveElsewhere(generation: Int) async {
        guard let list = try? await codex.threadList(limit: 50, timeout: policy.codexTimeout) else { return }
        for thread in list["data"]?.arrayValue ?? [] {
            guard let threadId = thread["id"]?.stringValue, thread["status"]?["type"]?.stringValue == "active",
                gate.shows(cwd: thread["cwd"]?.stringValue), self.generation == generation,
                !book.isLoaded(threadId, in: generation), sharedThreads.entries[threadId]?.follow ?? .idle == .idle
            else { continue }
            book.know(threadId, cwd: thread["cwd"]?.stringValue, generation: ThreadBook.notLoaded)
            sharedThreads.noteActive(threadId)
            followSharedThread(threadId)
        }
    }

    /// Resumes `threadId` as an observer, then publishes what it missed and what was held meanwhile.
    func followSharedThread(_ threadId: String) {
        sharedThreads.beginResume(threadId)
        let generation = self.generation
        background.start { await self.completeFollow(threadId, generation: generation) }
    }

    private func completeFollow(_ threadId: String, generation: Int) async {
        var thread: JSONValue?
        do {
            // No sandbox or approval policy: Codex keeps the thread's own (the terminal's choice).
            _ = try await codex.threadResume(threadId: threadId, timeout: policy.codexTimeout)
            thread = try await codex.threadRead(threadId: threadId, includeTurns: true, timeout: policy.codexTimeout)
        } catch {
            logger.debug("Cannot resume a shared thread yet", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
        }
        let followed = thread != nil && generation == self.generation
        // What it missed (computed against the held notifications), then the held ones, in that order.
        let missed = followed ? thread.map { sharedThreads.backfill(threadId, thread: $0) } ?? [] : []
        let held = sharedThreads.endResume(threadId, following: followed ? generation : nil)
        if followed {
            book.followed(threadId, generation: generation)
            for event in missed { publishBackfilled(threadId: threadId, event: event) }
            // Codex's stored thread may lag behind a running turn: look again when that turn ends.
            let lastTurn = thread?["turns"]?.arrayValue?.last
            if sharedThreads.entries[threadId]?.status == "active", lastTurn?["status"]?.stringValue ?? "inProgress" == "inProgress" {
                sharedThreads.entries[threadId]?.catchUpAtTurnEnd = true
            }
            logger.info("Following a thread of the shared app-server", metadata: ["bridge.thread.id": "\(threadId)"])
        }
        for buffered in held {
            notification(method: buffered.method, params: buffered.params, paramsJSON: buffered.paramsJSON)
        }
        if !followed, sharedThreads.mayRetry(threadId) {
            // Codex writes the rollout just after the turn starts: try again shortly (also when that turn is
            // already over: thread/read then brings all of it).
            try? await Task.sleep(for: .milliseconds(250))
            if sharedThreads.mayRetry(threadId), !book.isLoaded(threadId, in: self.generation) {
                followSharedThread(threadId)
            }
        }
    }

    /// Reads a followed thread again at the end of a turn it joined late; publishes the items it never received,
    /// then the held notifications (the turn's end among them).
    private func completeCatchUp(_ threadId: String, generation: Int) async {
        let thread = try? await codex.threadRead(threadId: threadId, includeTurns: true, timeout: policy.codexTimeout)
        let missed = thread.map { sharedThreads.backfill(threadId, thread: $0) } ?? []
        let held = sharedThreads.endResume(threadId, following: generation)
        for event in missed { publishBackfilled(threadId: threadId, event: event) }
        for buffered in held {
            notification(method: buffered.method, params: buffered.params, paramsJSON: buffered.paramsJSON)
        }
    }

    private func publishBackfilled(threadId: String, event: (method: String, turnId: String, data: JSONValue)) {
        _ = sharedThreads.note(threadId: threadId, method: event.method, params: event.data, paramsJSON: nil)
        book.observe(event.method, threadId: threadId, turnId: event.turnId)
        publish(threadId: threadId) { seq in
            .event(ThreadEvent(seq: seq, threadId: threadId, turnId: event.turnId, type: event.method, data: event.data))
        }
    }

    /// Learns the cwd of a thread announced before this bridge connected; resumes it when it is active.
    private func discoverSharedThread(_ threadId: String) {
        guard !sharedThreads.discovering.contains(threadId) else { return }
        sharedThreads.discovering.insert(threadId)
        background.start { await self.discover(threadId) }
    }

    private func discover(_ threadId: String) async {
        defer { sharedThreads.discovering.remove(threadId) }
        // thread/read fails until Codex has written the rollout (just after the first turn starts).
        for _ in 0..<SharedThreadTracker.maxAttempts {
            if let facts = try? await threadFacts(threadId) {
                guard gate.shows(cwd: facts.cwd) else { return }
                sharedThreads.noteActive(threadId)
                followSharedThread(threadId)
                return
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    /// `serverRequest/resolved` for an approval still pending here: another client answered it first.
    private func approvalAnsweredElsewhere(_ params: JSONValue) {
        guard let requestId = params["requestId"],
            let request = desks.approvals.answeredElsewhere(requestId: requestId, generation: generation)
        else { return }
        let approvalId = request.approvalId
        let answered = SharedThreadTracker.AnsweredElsewhere(approvalId: approvalId, threadId: request.threadId)
        if let itemId = request.itemId {
            sharedThreads.answeredElsewhere[itemId] = answered
        } else {
            publishAnsweredElsewhere(answered, decision: .accept)
        }
        logger.info("Approval answered by another Codex client", metadata: ["bridge.approval.id": "\(approvalId)"])
    }

    private func publishAnsweredElsewhere(_ answered: SharedThreadTracker.AnsweredElsewhere, decision: ApprovalDecision) {
        publish(threadId: answered.threadId) { seq in
            .approvalResolved(
                ApprovalResolved(
                    seq: seq, approvalId: answered.approvalId, threadId: answered.threadId, decision: decision, answeredElsewhere: true))
        }
        let entry = auditor.entry(
            actor: .desk, kind: "approve", threadId: answered.threadId, outcome: "ok", detail: "\(decision.rawValue) \(answered.approvalId)"
        )
        background.start { [auditor] in await auditor.record(entry) }
    }
}
