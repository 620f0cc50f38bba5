import BridgeProtocol

/// The `thread/list` source kinds that cover every thread a user has: this bridge's (`appServer`), `codex exec`,
/// the interactive CLI and the VS Code extension. (Codex's default lists only cli and vscode.)
public let codexAllThreadSourceKinds: [String] = ["appServer", "exec", "cli", "vscode"]

extension CodexRequesting {
    /// `thread/start {cwd, model?, sandbox?, approvalPolicy?, approvalsReviewer?}` → the new thread's id.
    /// - Parameters:
    ///   - sandbox: `read-only` | `workspace-write` | `danger-full-access`.
    ///   - approvalPolicy: `untrusted` | `on-request` | `never`.
    ///   - approvalsReviewer: `user` | `auto_review`.
    public func threadStart(
        cwd: String,
        model: String? = nil,
        sandbox: String? = nil,
        approvalPolicy: String? = nil,
        approvalsReviewer: String? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> String {
        var params: [String: JSONValue] = ["cwd": .string(cwd)]
        if let approvalsReviewer { params["approvalsReviewer"] = .string(approvalsReviewer) }
        if let model { params["model"] = .string(model) }
        if let sandbox { params["sandbox"] = .string(sandbox) }
        if let approvalPolicy { params["approvalPolicy"] = .string(approvalPolicy) }
        let result = try await request("thread/start", params: .object(params), timeout: timeout)
        return try Self.string(result["thread"]?["id"], "thread/start result.thread.id")
    }

    /// `turn/start {threadId, input:[{type:"text", text}], sandboxPolicy?, approvalPolicy?, collaborationMode?}` → the
    /// new turn's id. A sandbox or approval policy given here applies to this turn and the thread's later ones.
    /// `extraInput` items (e.g. `{type: "localImage", path}`) follow the text. `collaborationMode` needs the
    /// `experimentalApi` capability (which ``CodexAppServer`` declares).
    public func turnStart(
        threadId: String, text: String, sandbox: String? = nil, approvalPolicy: String? = nil, model: String? = nil, effort: String? = nil,
        extraInput: [JSONValue] = [], collaborationMode: CodexCollaborationMode? = nil, timeout: Duration = .seconds(60)
    ) async throws -> String {
        var object: [String: JSONValue] = ["threadId": .string(threadId), "input": Self.textInput(text, extraInput)]
        if let model { object["model"] = .string(model) }
        if let effort { object["effort"] = .string(effort) }
        if let collaborationMode { object["collaborationMode"] = collaborationMode.params }
        if let sandbox { object["sandboxPolicy"] = Self.sandboxPolicy(sandbox) }
        if let approvalPolicy { object["approvalPolicy"] = .string(approvalPolicy) }
        let params = JSONValue.object(object)
        let result = try await request("turn/start", params: params, timeout: timeout)
        return try Self.string(result["turn"]?["id"], "turn/start result.turn.id")
    }

    /// `turn/steer {threadId, input, expectedTurnId}`: adds input to the running turn; → its turn id.
    /// Fails (`.rpc`) when `expectedTurnId` is not the running turn.
    public func turnSteer(
        threadId: String,
        text: String,
        expectedTurnId: String,
        extraInput: [JSONValue] = [],
        timeout: Duration = .seconds(60)
    ) async throws -> String {
        let params: JSONValue = [
            "threadId": .string(threadId), "input": Self.textInput(text, extraInput), "expectedTurnId": .string(expectedTurnId),
        ]
        let result = try await request("turn/steer", params: params, timeout: timeout)
        return result["turnId"]?.stringValue ?? expectedTurnId
    }

    /// `turn/interrupt {threadId, turnId}`; the turn then completes with status `interrupted`.
    public func turnInterrupt(threadId: String, turnId: String, timeout: Duration = .seconds(60)) async throws {
        _ = try await request(
            "turn/interrupt",
            params: ["threadId": .string(threadId), "turnId": .string(turnId)],
            timeout: timeout
        )
    }

    /// `thread/resume {threadId, sandbox?, approvalPolicy?, excludeTurns: true}`: loads a stored thread into this
    /// child (needed after a restart) → the result (`thread` without its turns, `cwd`, `model`, `approvalPolicy`,
    /// `sandbox`, ...): a long thread's history is not sent to be dropped. Without a sandbox and approval policy
    /// Codex keeps the ones stored with the thread.
    @discardableResult
    public func threadResume(
        threadId: String, sandbox: String? = nil, approvalPolicy: String? = nil, timeout: Duration = .seconds(60)
    ) async throws -> JSONValue {
        var params: [String: JSONValue] = ["threadId": .string(threadId), "excludeTurns": true]
        if let sandbox { params["sandbox"] = .string(sandbox) }
        if let approvalPolicy { params["approvalPolicy"] = .string(approvalPolicy) }
        return try await request("thread/resume", params: .object(params), timeout: timeout)
    }

    /// `thread/list {limit, cursor, sourceKinds}` → `{data:[Thread], nextCursor?}` (a Thread has `id`, `cwd`,
    /// `preview`, `status`, `updatedAt`, ...).
    public func threadList(
        limit: Int? = nil,
        cursor: String? = nil,
        archived: Bool? = nil,
        sourceKinds: [String] = codexAllThreadSourceKinds,
        timeout: Duration = .seconds(60)
    ) async throws -> JSONValue {
        var params: [String: JSONValue] = ["sourceKinds": .array(sourceKinds.map { .string($0) })]
        if let limit { params["limit"] = .number(Double(limit)) }
        if let cursor { params["cursor"] = .string(cursor) }
        if archived == true { params["archived"] = .bool(true) }
        return try await request("thread/list", params: .object(params), timeout: timeout)
    }

    /// `thread/turns/list {threadId, cursor?, limit, sortDirection: "desc", itemsView: "full"}` → `{data: [Turn],
    /// nextCursor?}`: a page of the thread's turns, newest first, each with all its items; `nextCursor` (opaque,
    /// valid for this thread only) continues with the older ones, absent after the first turn.
    public func threadTurnsList(threadId: String, cursor: String? = nil, limit: Int, timeout: Duration = .seconds(60))
        async throws -> JSONValue
    {
        var params: [String: JSONValue] = [
            "threadId": .string(threadId), "limit": .number(Double(limit)), "sortDirection": "desc", "itemsView": "full",
        ]
        if let cursor { params["cursor"] = .string(cursor) }
        return try await request("thread/turns/list", params: .object(params), timeout: timeout)
    }

    /// `thread/read {threadId, includeTurns}` → the `thread` object (with `turns` and their `items`).
    public func threadRead(threadId: String, includeTurns: Bool = true, timeout: Duration = .seconds(60))
        async throws -> JSONValue
    {
        let result = try await request(
            "thread/read",
            params: ["threadId": .string(threadId), "includeTurns": .bool(includeTurns)],
            timeout: timeout
        )
        return result["thread"] ?? result
    }

    /// `turn/start`'s `sandboxPolicy` object for a `thread/start`-style sandbox mode name.
    static func sandboxPolicy(_ mode: String) -> JSONValue {
        switch mode {
        case "read-only": ["type": "readOnly"]
        case "danger-full-access": ["type": "dangerFullAccess"]
        default: ["type": "workspaceWrite"]
        }
    }

    private static func textInput(_ text: String, _ extra: [JSONValue] = []) -> JSONValue {
        .array([["type": "text", "text": .string(text)]] + extra)
    }

    private static func string(_ value: JSONValue?, _ what: String) throws -> String {
        guard let string = value?.stringValue else { throw CodexError.protocolViolation("missing \(what)") }
        return string
    }
}
