import BridgeProtocol
import CodexControl
import Foundation

/// A thread's housekeeping and settings, as Codex does them: compaction (`compactThread`), deletion
/// (`deleteThread`), reverting its last turns (`revertThread`), full-text search (`searchThreads`) and settings for the next turns (`updateThreadSettings`).
/// Stateless: the hub's dispatch checks the scope, the gate and the thread's state, then calls one of these.
struct ThreadHousekeeping: Sendable {
    let codex: any CodexRequesting
    let timeout: Duration

    /// Longest `searchThreads` query, in characters.
    static let maxQueryLength = 200

    /// `thread/compact/start`: Codex runs the compaction as a turn of the thread (a `contextCompaction` item).
    func compact(_ threadId: String) async throws {
        try await codex.threadCompactStart(threadId: threadId, timeout: timeout)
    }

    /// `thread/delete`: the thread's rollout is removed; Codex tells every client `thread/deleted`, which the hub
    /// relays to the thread's subscribers and to `*`.
    func delete(_ threadId: String) async throws {
        try await codex.threadDelete(threadId: threadId, timeout: timeout)
    }

    /// `thread/revert`: Codex keeps the thread's history before `turnId` (the thread is reloaded with it; files
    /// stay as they are) and tells every client `thread/reverted`.
    func revert(_ threadId: String, before turnId: String) async throws {
        guard !turnId.isEmpty, turnId.count <= 128 else { throw HubError(.badRequest, "turnId must be 1 to 128 characters") }
        try await codex.threadRevert(threadId: threadId, beforeTurnId: turnId, timeout: timeout)
    }

    /// One page of `thread/search`: Codex's threads (each with its `snippet`) and the next cursor.
    func search(_ search: SearchThreads) async throws -> (threads: [JSONValue], nextCursor: String?) {
        let query = search.query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...Self.maxQueryLength).contains(query.count) else {
            throw HubError(.badRequest, "query must be 1 to \(Self.maxQueryLength) characters")
        }
        if let limit = search.limit, !(1...500).contains(limit) { throw HubError(.badRequest, "limit must be between 1 and 500") }
        let result = try await codex.threadSearch(
            query, limit: search.limit ?? 50, cursor: search.cursor, archived: search.archived,
            sourceKinds: codexAllThreadSourceKinds + SubAgentTracker.listedSourceKinds(includeInternal: false), timeout: timeout)
        let threads = (result["data"]?.arrayValue ?? []).compactMap { hit -> JSONValue? in
            guard case .object(var thread)? = hit["thread"] else { return nil }
            if let snippet = hit["snippet"]?.stringValue { thread[Self.snippetKey] = .string(snippet) }
            return .object(thread)
        }
        return (threads, result["nextCursor"]?.stringValue)
    }

    /// Where ``search(_:)`` leaves a hit's snippet in its thread object.
    static let snippetKey = "bridge.snippet"

    /// `thread/settings/update` for the thread's next turns. `sandbox` is the sandbox the gate admitted for a
    /// `permissionProfile` (nil: unchanged).
    func updateSettings(_ update: UpdateThreadSettings, sandbox: String?) async throws {
        guard update.model != nil || update.effort != nil || update.approvalsReviewer != nil || update.permissionProfile != nil else {
            throw HubError(.badRequest, "name at least one of model, effort, approvalsReviewer, permissionProfile")
        }
        try await codex.threadSettingsUpdate(
            threadId: update.threadId, model: update.model, effort: update.effort, approvalsReviewer: update.approvalsReviewer?.rawValue,
            sandbox: sandbox, timeout: timeout)
    }
}
