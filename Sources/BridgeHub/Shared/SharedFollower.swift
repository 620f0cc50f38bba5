import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Logging

/// `serve --shared`: Codex is an app-server the terminal's Codex TUI uses too (``CodexPort/isShared``).
///
/// - Threads the TUI starts are announced to every connection (`thread/started`, `thread/status/changed`),
///   but their turn events and approvals reach only connections that resumed them, and Codex refuses the
///   resume until the first turn began. So when such a thread becomes active the follower resumes it — without a
///   sandbox or approval policy, so the terminal's own settings stay — reads it back (`thread/read`) to publish
///   what it missed, then the hub relays it like its own threads: journaled, `"*"` subscribers included.
/// - The gate applies: a thread whose cwd is unknown (the TUI's helper threads) or outside the roots is neither
///   published nor resumed, and its approvals are left to the terminal.
/// - Approvals go to every connection on the thread and the first answer wins: when the terminal answers first
///   Codex sends `serverRequest/resolved`; the hub then reports `approvalResolved` with `answeredElsewhere`
///   once the item shows the outcome. The hub never answers a request it cannot relay (the TUI will).
///
/// Its decisions are ``SharedThreadTracker``'s (a value type the hub holds); this runs them on the hub's executor,
/// in the same actor step as the notification that caused them (no hop on the event path), and its Codex calls as
/// the hub's background jobs.
enum SharedFollower {
    /// Whether to publish a notification of `threadId` on a shared app-server now (false: hidden by the gate, or
    /// held while the thread is resumed). Starts resumes as threads become active.
    static func admits(_ note: CodexNotification, threadId: String, on hub: isolated ThreadHub) -> Bool {
        let params = note.params
        if note.kind == .threadStarted, params["thread"]?["ephemeral"]?.boolValue == true { hub.sharedThreads.ephemeral.insert(threadId) }
        guard !hub.sharedThreads.ephemeral.contains(threadId) else { return false }
        // Not loaded here until this bridge starts or resumes it.
        hub.book.know(threadId, cwd: params["thread"]?["cwd"]?.stringValue, generation: ThreadBook.notLoaded)
        guard let cwd = hub.book[threadId]?.cwd else {
            // A thread announced before this bridge connected (or a helper thread with no cwd): learn its cwd.
            if note.kind == .threadStatusChanged { discover(threadId, on: hub) }
            return false
        }
        guard hub.gate.shows(cwd: cwd) else { return false }
        if note.kind == .serverRequestResolved { approvalAnsweredElsewhere(params, on: hub) }
        if note.kind == .itemCompleted, let itemId = params["item"]?["id"]?.stringValue,
            let answered = hub.sharedThreads.answeredElsewhere.removeValue(forKey: itemId)
        {
            publishAnsweredElsewhere(answered, decision: SharedThreadTracker.decision(ofCompleted: params["item"]), on: hub)
        }
        if note.kind == .turnCompleted {
            for (itemId, answered) in hub.sharedThreads.answeredElsewhere where answered.threadId == threadId {
                hub.sharedThreads.answeredElsewhere[itemId] = nil
                publishAnsweredElsewhere(answered, decision: .cancel, on: hub)
            }
        }
        if hub.sharedThreads.entries[threadId]?.follow != .resuming,
            let start = hub.sharedThreads.missingTurnStart(threadId: threadId, note)
        {
            publishBackfilled(threadId: threadId, event: ("turn/started", start.turnId, start.data), on: hub)
        }
        if note.kind == .turnCompleted, hub.sharedThreads.entries[threadId]?.catchUpAtTurnEnd == true,
            hub.sharedThreads.entries[threadId]?.follow == .following(generation: hub.generation)
        {
            // Followed mid-turn: read the thread again before its end is published (this notification is held).
            hub.sharedThreads.beginCatchUp(threadId)
            let generation = hub.generation
            hub.background.start { await completeCatchUp(threadId, generation: generation, on: hub) }
        }
        let publishNow = hub.sharedThreads.note(threadId: threadId, note)
        if hub.sharedThreads.wantsResume(threadId, generation: hub.generation), !hub.book.isLoaded(threadId, in: hub.generation) {
            follow(threadId, on: hub)
        }
        return publishNow
    }

    /// Whether to relay a server request on a shared app-server (false: leave it to the other clients).
    static func relays(method: String, threadId: String?, on hub: isolated ThreadHub) -> Bool {
        guard ApprovalMapping.type(of: method) != nil, let threadId, let cwd = hub.book[threadId]?.cwd else { return false }
        return hub.gate.shows(cwd: cwd)
    }

    /// On every connection: resumes the threads this bridge followed or drove in the previous connection, so
    /// their turns reach the phone again (publishing what they did meanwhile), and the threads inside the roots
    /// that other clients are running right now (started before this bridge connected).
    static func connected(previousGeneration: Int, on hub: isolated ThreadHub) {
        for (threadId, cwd) in hub.book.loaded(in: previousGeneration) where previousGeneration > 0 && hub.gate.shows(cwd: cwd) {
            _ = hub.sharedThreads.endResume(threadId, following: nil)
            follow(threadId, on: hub)
        }
        let generation = hub.generation
        hub.background.start { await followThreadsActiveElsewhere(generation: generation, on: hub) }
    }

    /// Follows the threads inside the roots that other clients run right now.
    private static func followThreadsActiveElsewhere(generation: Int, on hub: isolated ThreadHub) async {
        guard let list = try? await hub.codex.threadList(limit: 50, timeout: hub.policy.codexTimeout) else { return }
        for thread in list["data"]?.arrayValue ?? [] {
            guard let threadId = thread["id"]?.stringValue, thread["status"]?["type"]?.stringValue == "active",
                hub.gate.shows(cwd: thread["cwd"]?.stringValue), hub.generation == generation,
                !hub.book.isLoaded(threadId, in: generation), hub.sharedThreads.entries[threadId]?.follow ?? .idle == .idle
            else { continue }
            hub.book.know(threadId, cwd: thread["cwd"]?.stringValue, generation: ThreadBook.notLoaded)
            hub.sharedThreads.noteActive(threadId)
            follow(threadId, on: hub)
        }
    }

    /// Resumes `threadId` as an observer, then publishes what it missed and what was held meanwhile.
    private static func follow(_ threadId: String, on hub: isolated ThreadHub) {
        hub.sharedThreads.beginResume(threadId)
        let generation = hub.generation
        hub.background.start { await completeFollow(threadId, generation: generation, on: hub) }
    }

    private static func completeFollow(_ threadId: String, generation: Int, on hub: isolated ThreadHub) async {
        var thread: JSONValue?
        do {
            // No sandbox or approval policy: Codex keeps the thread's own (the terminal's choice).
            _ = try await hub.codex.threadResume(threadId: threadId, timeout: hub.policy.codexTimeout)
            thread = try await hub.codex.threadRead(threadId: threadId, includeTurns: true, timeout: hub.policy.codexTimeout)
        } catch {
            hub.logger.debug("Cannot resume a shared thread yet", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
        }
        let followed = thread != nil && generation == hub.generation
        // What it missed (computed against the held notifications), then the held ones, in that order.
        let missed = followed ? thread.map { hub.sharedThreads.backfill(threadId, thread: $0) } ?? [] : []
        let held = hub.sharedThreads.endResume(threadId, following: followed ? generation : nil)
        if followed {
            hub.book.followed(threadId, generation: generation)
            for event in missed { publishBackfilled(threadId: threadId, event: event, on: hub) }
            // Codex's stored thread may lag behind a running turn: look again when that turn ends.
            let lastTurn = thread?["turns"]?.arrayValue?.last
            if hub.sharedThreads.entries[threadId]?.status == "active", lastTurn?["status"]?.stringValue ?? "inProgress" == "inProgress" {
                hub.sharedThreads.entries[threadId]?.catchUpAtTurnEnd = true
            }
            hub.logger.info("Following a thread of the shared app-server", metadata: ["bridge.thread.id": "\(threadId)"])
        }
        for buffered in held { hub.notification(buffered) }
        if !followed, hub.sharedThreads.mayRetry(threadId) {
            // Codex writes the rollout just after the turn starts: try again shortly (also when that turn is
            // already over: thread/read then brings all of it).
            try? await Task.sleep(for: .milliseconds(250))
            if hub.sharedThreads.mayRetry(threadId), !hub.book.isLoaded(threadId, in: hub.generation) {
                follow(threadId, on: hub)
            }
        }
    }

    /// Reads a followed thread again at the end of a turn it joined late; publishes the items it never received,
    /// then the held notifications (the turn's end among them).
    private static func completeCatchUp(_ threadId: String, generation: Int, on hub: isolated ThreadHub) async {
        let thread = try? await hub.codex.threadRead(threadId: threadId, includeTurns: true, timeout: hub.policy.codexTimeout)
        let missed = thread.map { hub.sharedThreads.backfill(threadId, thread: $0) } ?? []
        let held = hub.sharedThreads.endResume(threadId, following: generation)
        for event in missed { publishBackfilled(threadId: threadId, event: event, on: hub) }
        for buffered in held { hub.notification(buffered) }
    }

    private static func publishBackfilled(
        threadId: String, event: (method: String, turnId: String, data: JSONValue), on hub: isolated ThreadHub
    ) {
        _ = hub.sharedThreads.note(threadId: threadId, CodexNotification(method: event.method, params: event.data))
        hub.book.observe(EventKind(method: event.method), threadId: threadId, turnId: event.turnId)
        hub.publishEvent(event.method, data: event.data, threadId: threadId, turnId: event.turnId)
    }

    /// Learns the cwd of a thread announced before this bridge connected; resumes it when it is active.
    private static func discover(_ threadId: String, on hub: isolated ThreadHub) {
        guard !hub.sharedThreads.discovering.contains(threadId) else { return }
        hub.sharedThreads.discovering.insert(threadId)
        hub.background.start { await lookUp(threadId, on: hub) }
    }

    private static func lookUp(_ threadId: String, on hub: isolated ThreadHub) async {
        defer { hub.sharedThreads.discovering.remove(threadId) }
        // thread/read fails until Codex has written the rollout (just after the first turn starts).
        for _ in 0..<SharedThreadTracker.maxAttempts {
            if let facts = try? await hub.threadFacts(threadId) {
                guard hub.gate.shows(cwd: facts.cwd) else { return }
                hub.sharedThreads.noteActive(threadId)
                follow(threadId, on: hub)
                return
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    /// `serverRequest/resolved` for an approval still pending here: another client answered it first.
    private static func approvalAnsweredElsewhere(_ params: JSONValue, on hub: isolated ThreadHub) {
        guard let requestId = params["requestId"],
            let request = hub.desks.approvals.answeredElsewhere(requestId: requestId, generation: hub.generation)
        else { return }
        let approvalId = request.approvalId
        let answered = SharedThreadTracker.AnsweredElsewhere(approvalId: approvalId, threadId: request.threadId)
        if let itemId = request.itemId {
            hub.sharedThreads.answeredElsewhere[itemId] = answered
        } else {
            publishAnsweredElsewhere(answered, decision: .accept, on: hub)
        }
        hub.logger.info("Approval answered by another Codex client", metadata: ["bridge.approval.id": "\(approvalId)"])
    }

    private static func publishAnsweredElsewhere(
        _ answered: SharedThreadTracker.AnsweredElsewhere, decision: ApprovalDecision, on hub: isolated ThreadHub
    ) {
        hub.publish(threadId: answered.threadId) { seq in
            .approvalResolved(
                ApprovalResolved(
                    seq: seq, approvalId: answered.approvalId, threadId: answered.threadId, decision: decision, answeredElsewhere: true))
        }
        let auditor = hub.auditor
        let entry = auditor.entry(
            actor: .desk, kind: "approve", threadId: answered.threadId, outcome: "ok", detail: "\(decision.rawValue) \(answered.approvalId)"
        )
        hub.background.start { await auditor.record(entry) }
    }
}
