import BridgeProtocol

/// Follow-ups held by the bridge until the thread's running turn ends (`sendMessage` with `mode: "queue"`): a
/// value type with no I/O, tested on its own. Per thread, first in first out; one message starts per turn end.
/// The hub keeps a copy of every held message in SQLite (``QueuedMessageStore``), so a restart loses none.
struct MessageQueue: Sendable {
    /// One queued message: what was announced (`messageQueued`) and the policy its turn runs with.
    struct Entry: Sendable, Hashable {
        var announcement: MessageQueued
        var policy: TurnPolicy
        var queuedId: String { announcement.queuedId }
        var threadId: String { announcement.threadId }
    }

    enum Refusal: Error, Equatable {
        /// The thread already holds `maxPerThread` messages.
        case full
        /// A reorder that does not name every waiting message exactly once (the queue changed meanwhile, or the
        /// list is wrong).
        case notTheWaitingMessages
    }

    /// Most messages one thread may hold.
    var maxPerThread = 20

    private(set) var waiting: [String: [Entry]] = [:]
    /// The last `queueChanged` announced per thread still holding messages (sent again to a late subscriber).
    var changes: [String: QueueChanged] = [:]
    /// Threads whose next message is being started (between the turn's end and Codex's answer to `turn/start`).
    private(set) var starting: Set<String> = []
    /// Turns that ended while their thread's next message was starting (a turn can end before Codex has answered
    /// the `turn/start` that began it).
    private(set) var endedWhileStarting: [String: Set<String>] = [:]

    /// The messages `threadId` holds, oldest first.
    func entries(of threadId: String) -> [Entry] { waiting[threadId] ?? [] }

    /// Every held message, oldest first per thread.
    var all: [Entry] { waiting.values.flatMap { $0 }.sorted { $0.announcement.seq < $1.announcement.seq } }

    /// Whether a message for `threadId` must wait behind others even though no turn runs.
    func isBusy(_ threadId: String) -> Bool { starting.contains(threadId) || !(waiting[threadId]?.isEmpty ?? true) }

    mutating func enqueue(_ entry: Entry) throws(Refusal) {
        guard entries(of: entry.threadId).count < maxPerThread else { throw .full }
        waiting[entry.threadId, default: []].append(entry)
    }

    /// Removes a message that has not started; nil when there is none by that id on that thread.
    mutating func cancel(_ queuedId: String, on threadId: String) -> Entry? {
        guard let index = waiting[threadId]?.firstIndex(where: { $0.queuedId == queuedId }) else { return nil }
        let entry = waiting[threadId]?.remove(at: index)
        if waiting[threadId]?.isEmpty == true { waiting[threadId] = nil }
        return entry
    }

    /// The thread's turn ended: the message to start now (marked as starting), or nil (none held, or one is
    /// already starting).
    mutating func next(for threadId: String, endedTurn: String? = nil) -> Entry? {
        if starting.contains(threadId) {
            if let endedTurn { endedWhileStarting[threadId, default: []].insert(endedTurn) }
            return nil
        }
        guard var list = waiting[threadId], !list.isEmpty else { return nil }
        let entry = list.removeFirst()
        waiting[threadId] = list.isEmpty ? nil : list
        starting.insert(threadId)
        return entry
    }

    /// The message taken by `next(for:)` started as `turnId` (nil: it failed to): the thread's next one may follow
    /// its turn. True when that turn has already ended (its end came before Codex's answer), so the next one may
    /// start now.
    @discardableResult
    mutating func finishedStarting(_ threadId: String, turnId: String? = nil) -> Bool {
        starting.remove(threadId)
        let ended = endedWhileStarting.removeValue(forKey: threadId) ?? []
        return turnId.map { ended.contains($0) } ?? false
    }

    /// Puts back, first in its thread's line, a message that could not start because Codex was not there; it
    /// starts when Codex is back.
    mutating func putBack(_ entry: Entry) {
        starting.remove(entry.threadId)
        endedWhileStarting[entry.threadId] = nil
        waiting[entry.threadId, default: []].insert(entry, at: 0)
    }

    /// Puts the thread's waiting messages in the order `ids` names them: every waiting `queuedId`, each once.
    mutating func reorder(_ ids: [String], on threadId: String) throws(Refusal) {
        let list = entries(of: threadId)
        guard ids.count == list.count, Set(ids) == Set(list.map(\.queuedId)), Set(ids).count == ids.count else {
            throw .notTheWaitingMessages
        }
        waiting[threadId] = ids.compactMap { id in list.first { $0.queuedId == id } }
    }

    /// New text for a waiting message (its place in line is kept); nil when none by that id waits on that thread.
    mutating func edit(_ queuedId: String, on threadId: String, text: String) -> Entry? {
        guard let index = waiting[threadId]?.firstIndex(where: { $0.queuedId == queuedId }) else { return nil }
        waiting[threadId]?[index].announcement.text = text
        return waiting[threadId]?[index]
    }

    /// The thread's waiting messages as `queueChanged` lists them, in the order they will start.
    func items(of threadId: String) -> [QueuedItem] { entries(of: threadId).map { QueuedItem($0.announcement) } }

    /// Messages kept from before a restart, in the order they were queued (the per-thread bound does not apply:
    /// they were accepted under it).
    mutating func restore(_ entries: [Entry]) {
        for entry in entries { waiting[entry.threadId, default: []].append(entry) }
    }

    /// The threads holding messages, none of whose next one is starting.
    var threadsWaiting: [String] { waiting.keys.filter { !starting.contains($0) }.sorted() }
}
