import BridgeProtocol
import CodexControl

/// Paged history (issue 36): `readThread {turns}` answers the thread with its newest turns only, and `readTurns`
/// the turns before a cursor, through Codex's `thread/turns/list` (newest first, every item of each turn), so a
/// long thread opens at once and its older turns are fetched as the person scrolls back. Codex's cursor is passed
/// through as it came (opaque; Codex refuses one of another thread, and the gate admitted this thread).
struct ThreadPages: Sendable {
    let services: HubServices

    /// Most turns one answer holds; the page size when `readTurns` names none.
    static let maxTurns = 100
    static let defaultTurns = 10
    /// Longest cursor accepted (Codex's are under 200 bytes).
    static let maxCursorBytes = 4096

    private var codex: any CodexPort { services.codex }
    private var timeout: Duration { services.policy.codexTimeout }

    /// `readThread`: every turn without `turns`, as before paging; else the newest `turns` and `olderTurns`.
    func read(_ read: ReadThread) async throws -> ThreadSnapshot {
        guard let count = read.turns else {
            return await snapshot(
                of: read.threadId, thread: try await codex.threadRead(threadId: read.threadId, includeTurns: true, timeout: timeout))
        }
        let limit = try Self.limit(count)
        // Both Codex calls at once: opening a thread waits for one of them, not for the two in a row (P9). thread/read's
        // error is the one thrown (awaited first): an unknown thread is not_found, as without paging.
        async let newest = turns(of: read.threadId, before: nil, limit: limit)
        var thread = try await codex.threadRead(threadId: read.threadId, includeTurns: false, timeout: timeout)
        let page = try await newest
        if var object = thread.objectValue {
            object["turns"] = .array(page.turns)
            thread = .object(object)
        }
        var snapshot = await snapshot(of: read.threadId, thread: thread)
        snapshot.olderTurns = page.older
        return snapshot
    }

    /// `readTurns`: the page before the cursor, oldest first, with the approvals and questions asked in it.
    func read(_ read: ReadTurns) async throws -> TurnPage {
        guard !read.cursor.isEmpty, read.cursor.utf8.count <= Self.maxCursorBytes else {
            throw HubError(.badRequest, "cursor must be 1 to \(Self.maxCursorBytes) bytes: an olderTurns value as it came")
        }
        let page = try await turns(of: read.threadId, before: read.cursor, limit: try Self.limit(read.limit ?? Self.defaultTurns))
        let ids = Set(page.turns.compactMap { $0["id"]?.stringValue })
        let requests = Self.requests(await services.journaledRequests.frames(of: read.threadId), inTurns: ids)
        return TurnPage(threadId: read.threadId, turns: page.turns, olderTurns: page.older, requests: requests)
    }

    /// `readThread`'s answer: Codex's thread and what the bridge keeps beside it (goal, mode, plans, the running
    /// turn's text so far from the journal, the approvals and questions with their answers).
    private func snapshot(of threadId: String, thread: JSONValue) async -> ThreadSnapshot {
        services.plans.learn(thread: thread)
        let kept = services.plans.plans(of: threadId)
        let goal = await services.goals.goals(of: [threadId])[threadId]
        let facts = await services.hub.snapshotFacts(of: threadId)
        var answer = ThreadSnapshot(
            thread: thread, goal: goal, collaborationMode: services.plans.rememberedMode(of: threadId), plans: kept.isEmpty ? nil : kept,
            subAgents: facts.subAgents.isEmpty ? nil : facts.subAgents, tokenUsage: facts.tokenUsage)
        // Mid-turn: the items Codex has not recorded yet, with their text so far, from the journal (issue 37 item 2).
        if let running = facts.running {
            await TurnSoFar.merge(into: &answer, from: services.storage.journal, threadId: threadId, running: running, through: facts.seam)
        }
        answer.requests = await services.journaledRequests.frames(of: threadId)
        answer.voice = await VoiceTranscripts(journal: services.storage.journal, logger: services.logger).parts(of: threadId)
        return answer
    }

    /// One page of Codex's turns, turned oldest first.
    private func turns(of threadId: String, before cursor: String?, limit: Int) async throws -> (turns: [JSONValue], older: String?) {
        let result: JSONValue
        do {
            result = try await codex.threadTurnsList(threadId: threadId, cursor: cursor, limit: limit, timeout: timeout)
        } catch let error as CodexError where cursor != nil && error.code == .rpc && error.message.contains("invalid cursor") {
            throw HubError(.badRequest, "cursor is not an olderTurns value of thread \(threadId)")
        }
        let turns = (result["data"]?.arrayValue ?? []).prefix(limit).reversed()
        return (Array(turns), result["nextCursor"]?.stringValue)
    }

    static func limit(_ count: Int) throws -> Int {
        guard (1...maxTurns).contains(count) else { throw HubError(.badRequest, "turns and limit must be 1 to \(maxTurns)") }
        return count
    }

    /// The journaled approval and question frames of the given turns, with the frames that answered them.
    static func requests(_ frames: [JSONValue]?, inTurns ids: Set<String>) -> [JSONValue]? {
        guard let frames else { return nil }
        let key = { (frame: JSONValue) in frame["approvalId"]?.stringValue ?? frame["requestId"]?.stringValue }
        let asked = frames.filter { ids.contains($0["turnId"]?.stringValue ?? "") }
        let askedIds = Set(asked.compactMap(key))
        let kept = frames.filter { frame in
            ids.contains(frame["turnId"]?.stringValue ?? "") || key(frame).map(askedIds.contains) == true
        }
        return kept.isEmpty ? nil : kept
    }
}
