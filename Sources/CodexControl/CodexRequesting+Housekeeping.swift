import BridgeProtocol

/// Typed calls for a thread's housekeeping and settings: compaction, deletion, search, settings mid-thread.
extension CodexRequesting {
    /// `thread/compact/start {threadId}`: Codex summarises the thread's context in a turn of its own (a
    /// `contextCompaction` item between `turn/started` and `turn/completed`).
    public func threadCompactStart(threadId: String, timeout: Duration = .seconds(60)) async throws {
        _ = try await request("thread/compact/start", params: ["threadId": .string(threadId)], timeout: timeout)
    }

    /// `thread/delete {threadId}`: removes the thread's rollout for good; Codex tells every client `thread/deleted`.
    public func threadDelete(threadId: String, timeout: Duration = .seconds(60)) async throws {
        _ = try await request("thread/delete", params: ["threadId": .string(threadId)], timeout: timeout)
    }

    /// `thread/revert {threadId, beforeTurnId}` (a paginated thread, Codex 0.163's default): the thread's durable
    /// history becomes the turns before `beforeTurnId`; local files are not touched. Codex shuts the thread down
    /// (interrupting a running turn), reloads it and tells every client `thread/reverted`.
    public func threadRevert(threadId: String, beforeTurnId: String, timeout: Duration = .seconds(60)) async throws {
        _ = try await request(
            "thread/revert", params: ["threadId": .string(threadId), "beforeTurnId": .string(beforeTurnId)], timeout: timeout)
    }

    /// `thread/search {searchTerm, limit?, cursor?, archived?, sourceKinds}` (experimental) →
    /// `{data: [{thread, snippet}], nextCursor?}`.
    public func threadSearch(
        _ term: String, limit: Int? = nil, cursor: String? = nil, archived: Bool? = nil, sourceKinds: [String] = codexAllThreadSourceKinds,
        timeout: Duration = .seconds(60)
    ) async throws -> JSONValue {
        var params: [String: JSONValue] = ["searchTerm": .string(term), "sourceKinds": .array(sourceKinds.map { .string($0) })]
        if let limit { params["limit"] = .number(Double(limit)) }
        if let cursor { params["cursor"] = .string(cursor) }
        if archived == true { params["archived"] = .bool(true) }
        return try await request("thread/search", params: .object(params), timeout: timeout)
    }

    /// `thread/approveGuardianDeniedAction {threadId, event}`: a person approves an action Codex's automatic
    /// reviewer denied (`event`: Codex's core `GuardianAssessmentEvent`); Codex tells the model so in the thread.
    public func threadApproveGuardianDeniedAction(threadId: String, event: JSONValue, timeout: Duration = .seconds(60)) async throws {
        _ = try await request(
            "thread/approveGuardianDeniedAction", params: ["threadId": .string(threadId), "event": event], timeout: timeout)
    }

    /// `thread/settings/update {threadId, model?, effort?, approvalsReviewer?, sandboxPolicy?}` (experimental): the
    /// settings of the thread's next turns; Codex answers every client with `thread/settings/updated`.
    /// - Parameter sandbox: a `thread/start`-style sandbox mode name, sent as `sandboxPolicy`.
    public func threadSettingsUpdate(
        threadId: String, model: String? = nil, effort: String? = nil, approvalsReviewer: String? = nil, sandbox: String? = nil,
        timeout: Duration = .seconds(60)
    ) async throws {
        var params: [String: JSONValue] = ["threadId": .string(threadId)]
        if let model { params["model"] = .string(model) }
        if let effort { params["effort"] = .string(effort) }
        if let approvalsReviewer { params["approvalsReviewer"] = .string(approvalsReviewer) }
        if let sandbox { params["sandboxPolicy"] = Self.sandboxPolicy(sandbox) }
        _ = try await request("thread/settings/update", params: .object(params), timeout: timeout)
    }
}
