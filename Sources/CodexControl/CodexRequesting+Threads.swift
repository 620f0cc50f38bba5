import BridgeProtocol

/// The `thread/list` source kinds that cover every thread a user has: this bridge's (`appServer`), `codex exec`,
/// the interactive CLI and the VS Code extension. (Codex's default lists only cli and vscode.)
public let codexAllThreadSourceKinds: [String] = ["appServer", "exec", "cli", "vscode"]

extension CodexRequesting {
    /// `thread/start {cwd, model?, sandbox?, approvalPolicy?}` → the new thread's id.
    /// - Parameters:
    ///   - sandbox: `read-only` | `workspace-write` | `danger-full-access`.
    ///   - approvalPolicy: `untrusted` | `on-request` | `never`.
    public func threadStart(
        cwd: String,
        model: String? = nil,
        sandbox: String? = nil,
        approvalPolicy: String? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> String {
        var params: [String: JSONValue] = ["cwd": .string(cwd)]
        if let model { params["model"] = .string(model) }
        if let sandbox { params["sandbox"] = .string(sandbox) }
        if let approvalPolicy { params["approvalPolicy"] = .string(approvalPolicy) }
        let result = try await request("thread/start", params: .object(params), timeout: timeout)
        return try Self.string(result["thread"]?["id"], "thread/start result.thread.id")
    }

    /// `turn/start {threadId, input:[{type:"text", text}]}` → the new turn's id.
    public func turnStart(threadId: String, text: String, timeout: Duration = .seconds(60)) async throws -> String {
        let params: JSONValue = ["threadId": .string(threadId), "input": Self.textInput(text)]
        let result = try await request("turn/start", params: params, timeout: timeout)
        return try Self.string(result["turn"]?["id"], "turn/start result.turn.id")
    }

    /// `turn/steer {threadId, input, expectedTurnId}`: adds input to the running turn; → its turn id.
    /// Fails (`.rpc`) when `expectedTurnId` is not the running turn.
    public func turnSteer(
        threadId: String,
        text: String,
        expectedTurnId: String,
        timeout: Duration = .seconds(60)
    ) async throws -> String {
        let params: JSONValue = [
            "threadId": .string(threadId), "input": Self.textInput(text), "expectedTurnId": .string(expectedTurnId),
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

    /// `thread/resume {threadId}`: loads a stored thread into this child (needed after a restart) → the result
    /// (`thread`, `cwd`, `model`, `approvalPolicy`, `sandbox`, ...).
    @discardableResult
    public func threadResume(threadId: String, timeout: Duration = .seconds(60)) async throws -> JSONValue {
        try await request("thread/resume", params: ["threadId": .string(threadId)], timeout: timeout)
    }

    /// `thread/list {limit, cursor, sourceKinds}` → `{data:[Thread], nextCursor?}` (a Thread has `id`, `cwd`,
    /// `preview`, `status`, `updatedAt`, ...).
    public func threadList(
        limit: Int? = nil,
        cursor: String? = nil,
        sourceKinds: [String] = codexAllThreadSourceKinds,
        timeout: Duration = .seconds(60)
    ) async throws -> JSONValue {
        var params: [String: JSONValue] = ["sourceKinds": .array(sourceKinds.map { .string($0) })]
        if let limit { params["limit"] = .number(Double(limit)) }
        if let cursor { params["cursor"] = .string(cursor) }
        return try await request("thread/list", params: .object(params), timeout: timeout)
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

    private static func textInput(_ text: String) -> JSONValue {
        [["type": "text", "text": .string(text)]]
    }

    private static func string(_ value: JSONValue?, _ what: String) throws -> String {
        guard let string = value?.stringValue else { throw CodexError.protocolViolation("missing \(what)") }
        return string
    }
}
