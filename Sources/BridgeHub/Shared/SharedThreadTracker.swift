import BridgeProtocol
import CodexControl

/// What the hub knows, on a shared app-server, about threads that other Codex clients (the TUI) drive: whether
/// this bridge receives their turn events yet, what it already published of their turns, and the approvals
/// the other side answered. A value type with no I/O; ``ThreadHub`` acts on what it returns.
///
/// Codex 0.163.0 sends turn and item events (and approvals) of a thread only to connections that started or
/// resumed it, and refuses `thread/resume` ("no rollout found") until the thread's first turn has begun. So a
/// thread seen in `thread/started` is `idle` until it becomes active; then the hub resumes it (`resuming`:
/// its events are buffered), reads it back (`thread/read`) to publish what it missed, and follows it.
struct SharedThreadTracker {
    enum Follow: Equatable {
        /// Not resumed by this bridge (yet).
        case idle
        /// `thread/resume` + `thread/read` under way; notifications are buffered.
        case resuming
        /// Resumed in this Codex generation: its events arrive live.
        case following(generation: Int)
    }

    struct Entry {
        var follow = Follow.idle
        /// Notifications held back while the thread is being resumed.
        var buffer: [CodexNotification] = []
        /// Resume attempts since the thread last became active.
        var attempts = 0
        /// Turns whose `turn/started` / `turn/completed` were published.
        var startedTurns: Set<String> = []
        var completedTurns: Set<String> = []
        /// Items of the current turn whose `item/started` or `item/completed` was published.
        var items: Set<String> = []
        /// The thread's last status type (`active`, `idle`, …) from `thread/status/changed`.
        var status: String?
        /// Followed in the middle of a turn whose start Codex's stored thread did not show yet: at that turn's
        /// end the thread is read again for the items this bridge never received.
        var catchUpAtTurnEnd = false
    }

    /// An approval the other side answered first: reported once its item completes (the decision shows there).
    struct AnsweredElsewhere {
        var approvalId: String
        var threadId: String
    }

    var entries: [String: Entry] = [:]
    /// Ephemeral threads (the TUI's helpers, e.g. for titles): no rollout, never resumable, not the user's.
    var ephemeral: Set<String> = []
    /// Threads whose cwd is being looked up.
    var discovering: Set<String> = []
    /// Keyed by the approval's item id.
    var answeredElsewhere: [String: AnsweredElsewhere] = [:]

    /// Most resume attempts while a thread stays active (Codex writes the rollout shortly after the turn starts).
    static let maxAttempts = 20

    /// Notes a notification that is about to be published (or buffers it); true when it may be published now.
    mutating func note(threadId: String, _ note: CodexNotification) -> Bool {
        var entry = entries[threadId] ?? Entry()
        defer { entries[threadId] = entry }
        if entry.follow == .resuming {
            entry.buffer.append(note)
            return false
        }
        let params = note.params
        let turnId = params["turnId"]?.stringValue ?? params["turn"]?["id"]?.stringValue
        switch note.kind {
        case .threadStatusChanged:
            entry.status = params["status"]?["type"]?.stringValue ?? params["status"]?.stringValue
            if entry.status == "active", entry.follow == .idle { entry.attempts = 0 }
        case .turnStarted:
            if let turnId { entry.startedTurns.insert(turnId) }
        case .turnCompleted:
            if let turnId { entry.completedTurns.insert(turnId) }
            entry.items.removeAll()
        case .itemStarted, .itemCompleted:
            if let itemId = params["item"]?["id"]?.stringValue { entry.items.insert(itemId) }
        default: break
        }
        return true
    }

    /// Whether the hub should try `thread/resume` now: the thread is active and not followed in `generation`.
    func wantsResume(_ threadId: String, generation: Int) -> Bool {
        guard let entry = entries[threadId], entry.status == "active", entry.attempts < Self.maxAttempts else { return false }
        return entry.follow == .idle
    }

    /// Records that a thread is running (seen in `thread/list` rather than in a notification).
    mutating func noteActive(_ threadId: String) {
        entries[threadId, default: Entry()].status = "active"
        entries[threadId, default: Entry()].attempts = 0
    }

    /// Whether a failed resume should be tried again: the thread became active (so its rollout is being
    /// written) and the attempts are not used up, even when its turn is already over.
    func mayRetry(_ threadId: String) -> Bool {
        guard let entry = entries[threadId] else { return false }
        return entry.follow == .idle && entry.attempts > 0 && entry.attempts < Self.maxAttempts
    }

    /// Holds the thread's notifications (as during a resume) while it is read again.
    mutating func beginCatchUp(_ threadId: String) {
        entries[threadId, default: Entry()].follow = .resuming
        entries[threadId, default: Entry()].catchUpAtTurnEnd = false
    }

    /// A `turn/started` to publish before a live event of a turn whose start this bridge never published (it
    /// followed the thread mid-turn); nil when none is needed.
    func missingTurnStart(threadId: String, _ note: CodexNotification) -> (turnId: String, data: JSONValue)? {
        let params = note.params
        // An item's or a turn's event (their methods begin so), other than the start itself.
        guard let entry = entries[threadId], entry.catchUpAtTurnEnd, note.kind != .turnStarted,
            note.method.hasPrefix("item/") || note.method.hasPrefix("turn/"),
            let turnId = params["turnId"]?.stringValue ?? params["turn"]?["id"]?.stringValue, !entry.startedTurns.contains(turnId),
            !entry.completedTurns.contains(turnId)
        else { return nil }
        return (
            turnId,
            ["threadId": .string(threadId), "turn": ["id": .string(turnId), "status": "inProgress", "items": []], "backfilled": true]
        )
    }

    /// Starts a resume: notifications are buffered from now on.
    mutating func beginResume(_ threadId: String) {
        entries[threadId, default: Entry()].follow = .resuming
        entries[threadId, default: Entry()].attempts += 1
    }

    /// Ends a resume; returns the buffered notifications to publish (after what `backfill` returned).
    mutating func endResume(_ threadId: String, following generation: Int?) -> [CodexNotification] {
        var entry = entries[threadId] ?? Entry()
        entry.follow = generation.map { .following(generation: $0) } ?? .idle
        let buffered = entry.buffer
        entry.buffer = []
        entries[threadId] = entry
        return buffered
    }

    /// Events to publish for what the thread's last turn did before this bridge received its events, from
    /// `thread/read`'s thread: `turn/started`, `item/completed` per item, `turn/completed` when it ended. Left
    /// out: a turn already completed here, and anything the buffered notifications carry themselves.
    func backfill(_ threadId: String, thread: JSONValue) -> [(method: String, turnId: String, data: JSONValue)] {
        guard let entry = entries[threadId], let turn = thread["turns"]?.arrayValue?.last, let turnId = turn["id"]?.stringValue,
            !entry.completedTurns.contains(turnId)
        else { return [] }
        var bufferedTurnStarted = false
        var bufferedTurnCompleted = false
        var bufferedItems: Set<String> = []
        for buffered in entry.buffer {
            let bufferedTurn = buffered.params["turnId"]?.stringValue ?? buffered.params["turn"]?["id"]?.stringValue
            if buffered.kind == .turnStarted, bufferedTurn == turnId { bufferedTurnStarted = true }
            if buffered.kind == .turnCompleted, bufferedTurn == turnId { bufferedTurnCompleted = true }
            if let itemId = buffered.params["item"]?["id"]?.stringValue { bufferedItems.insert(itemId) }
        }
        let status = turn["status"]?.stringValue ?? "inProgress"
        var events: [(method: String, turnId: String, data: JSONValue)] = []
        var summary = turn.objectValue ?? [:]
        summary["items"] = []
        if !entry.startedTurns.contains(turnId), !bufferedTurnStarted {
            var started = summary
            started["status"] = "inProgress"
            events.append(("turn/started", turnId, ["threadId": .string(threadId), "turn": .object(started), "backfilled": true]))
        }
        for item in turn["items"]?.arrayValue ?? [] {
            guard let itemId = item["id"]?.stringValue, !entry.items.contains(itemId), !bufferedItems.contains(itemId) else { continue }
            events.append(
                (
                    "item/completed", turnId,
                    ["threadId": .string(threadId), "turnId": .string(turnId), "item": item, "backfilled": true]
                ))
        }
        if status != "inProgress", !bufferedTurnCompleted {
            events.append(("turn/completed", turnId, ["threadId": .string(threadId), "turn": .object(summary), "backfilled": true]))
        }
        return events
    }

    /// The decision an approval answered elsewhere evidently got, from its completed item's status.
    static func decision(ofCompleted item: JSONValue?) -> ApprovalDecision {
        switch item?["status"]?.stringValue {
        case "declined": .decline
        default: .accept
        }
    }
}
