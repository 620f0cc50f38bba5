import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation

/// The items of a running turn as far as its journaled events built them: Codex's `thread/read` records an item
/// once it is complete, so a client that opens the thread mid-turn (a reload, a tab iOS discarded) would see the
/// answer being streamed only from the next delta on. Folding the turn's `item/started`, deltas and
/// `item/completed` from the journal gives each item's text so far; ``merged(into:)`` adds what Codex's thread
/// object lacks. A value type with no I/O besides ``read(from:threadId:turnId:after:through:)``.
struct TurnSoFar {
    /// The running turn.
    let turnId: String
    /// Item ids in the order their first event came.
    private(set) var order: [String] = []
    /// Each item as built so far (`status: "inProgress"` until its `item/completed`).
    private(set) var items: [String: [String: JSONValue]] = [:]

    /// Frames read per journal page.
    static let pageSize = 2000

    init(turnId: String) {
        self.turnId = turnId
    }

    /// Reads the thread's journaled messages in `(after, through]` and folds those of `turnId`.
    static func read(from journal: EventJournal, threadId: String, turnId: String, after: Int64, through: Int64) async throws
        -> TurnSoFar
    {
        var soFar = TurnSoFar(turnId: turnId)
        var cursor = after
        while cursor < through {
            let page = try await journal.readFrames(after: cursor, through: through, threads: [threadId], limit: pageSize)
            for frame in page { soFar.apply(frame: frame.text) }
            guard let last = page.last, page.count == pageSize else { break }
            cursor = last.seq
        }
        return soFar
    }

    /// One journaled frame (`event` frames of this turn count; anything else is ignored).
    mutating func apply(frame text: String) {
        guard let frame = try? JSONValue(parsing: Data(text.utf8)), frame["kind"]?.stringValue == "event",
            frame["turnId"]?.stringValue == turnId || frame["data"]?["turnId"]?.stringValue == turnId,
            let type = frame["type"]?.stringValue, let data = frame["data"]
        else { return }
        apply(type: type, data: data)
    }

    /// One event of the turn.
    mutating func apply(type: String, data: JSONValue) {
        guard let kind = CodexNotification.Kind(method: type) else { return }
        switch kind {
        case .itemStarted, .itemCompleted:
            guard let item = data["item"]?.objectValue, let id = item["id"]?.stringValue else { return }
            if kind == .itemStarted, items[id] != nil { return }
            var copy = item
            if kind == .itemStarted { copy["status"] = "inProgress" }
            remember(id, copy)
        case .itemAgentMessageDelta: append(data, type: "agentMessage", field: "text")
        case .itemPlanDelta: append(data, type: "plan", field: "text")
        case .itemCommandExecutionOutputDelta: append(data, type: "commandExecution", field: "aggregatedOutput")
        case .itemReasoningSummaryTextDelta: appendPart(data, field: "summary", index: data["summaryIndex"]?.intValue)
        case .itemReasoningTextDelta: appendPart(data, field: "content", index: data["contentIndex"]?.intValue)
        default: break
        }
    }

    /// `readThread` mid-turn: the running turn's items as the journal has them through `seam`, merged into the
    /// snapshot's thread, and the seam its `throughSeq` (left as it is when the journal cannot be read).
    static func merge(
        into snapshot: inout ThreadSnapshot, from journal: EventJournal, threadId: String, running: (turnId: String, since: Int64),
        through seam: Int64
    ) async {
        guard let soFar = try? await read(from: journal, threadId: threadId, turnId: running.turnId, after: running.since, through: seam)
        else { return }
        snapshot.thread = soFar.merged(into: snapshot.thread)
        snapshot.throughSeq = seam
    }

    /// Codex's thread object with the running turn's items it lacks (or holds without their text yet) added from
    /// the journal, in the order they began; the turn is added when Codex's object does not have it.
    func merged(into thread: JSONValue) -> JSONValue {
        guard !order.isEmpty, var object = thread.objectValue else { return thread }
        var turns = object["turns"]?.arrayValue ?? []
        let index = turns.firstIndex { $0["id"]?.stringValue == turnId }
        var turn = index.flatMap { turns[$0].objectValue } ?? ["id": .string(turnId), "status": "inProgress", "items": .array([])]
        var codexItems = turn["items"]?.arrayValue ?? []
        for id in order {
            guard let built = items[id] else { continue }
            if let at = codexItems.firstIndex(where: { $0["id"]?.stringValue == id }) {
                // Codex's complete record wins; one it still marks in progress takes the text streamed so far.
                if codexItems[at]["status"]?.stringValue == "inProgress" { codexItems[at] = .object(built) }
            } else {
                codexItems.append(.object(built))
            }
        }
        turn["items"] = .array(codexItems)
        if let index { turns[index] = .object(turn) } else { turns.append(.object(turn)) }
        object["turns"] = .array(turns)
        return .object(object)
    }

    // MARK: Folding

    private mutating func remember(_ id: String, _ item: [String: JSONValue]) {
        if items[id] == nil { order.append(id) }
        items[id] = item
    }

    /// The item a delta belongs to (a delta before its `item/started` makes it), nil once it is complete.
    private mutating func open(_ data: JSONValue, type: String) -> (String, [String: JSONValue])? {
        guard let id = data["itemId"]?.stringValue, data["delta"]?.stringValue != nil else { return nil }
        let item = items[id] ?? ["id": .string(id), "type": .string(type), "status": "inProgress"]
        if items[id] != nil, item["status"]?.stringValue != "inProgress" { return nil }
        return (id, item)
    }

    private mutating func append(_ data: JSONValue, type: String, field: String) {
        guard case (let id, var item)? = open(data, type: type), let delta = data["delta"]?.stringValue else { return }
        item[field] = .string((item[field]?.stringValue ?? "") + delta)
        remember(id, item)
    }

    private mutating func appendPart(_ data: JSONValue, field: String, index: Int?) {
        guard case (let id, var item)? = open(data, type: "reasoning"), let delta = data["delta"]?.stringValue else { return }
        var parts = item[field]?.arrayValue ?? []
        let at = max(0, min(index ?? 0, 1000))
        while parts.count <= at { parts.append("") }
        parts[at] = .string((parts[at].stringValue ?? "") + delta)
        item[field] = .array(parts)
        remember(id, item)
    }
}
