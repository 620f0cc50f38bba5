import BridgeProtocol

/// A collaboration mode for `turn/start`: Codex's `{mode, settings: {model, reasoning_effort,
/// developer_instructions}}`. The settings take precedence over the turn's model and effort, so they name the ones
/// the thread runs with; `developer_instructions` null means Codex's built-in instructions for the mode.
public struct CodexCollaborationMode: Sendable, Hashable {
    /// `plan` or `default`.
    public var mode: String
    public var model: String
    public var effort: String?
    public init(mode: String, model: String, effort: String? = nil) {
        self.mode = mode
        self.model = model
        self.effort = effort
    }

    var params: JSONValue {
        [
            "mode": .string(mode),
            "settings": [
                "model": .string(model), "reasoning_effort": effort.map(JSONValue.string) ?? .null, "developer_instructions": .null,
            ],
        ]
    }
}

extension CodexRequesting {
    /// `thread/goal/set {threadId, objective, tokenBudget?, origin: "user"}` → the goal object Codex answers with.
    /// An active goal makes Codex start turns of its own on the thread.
    public func threadGoalSet(threadId: String, objective: String, tokenBudget: Int64? = nil, timeout: Duration = .seconds(60))
        async throws -> JSONValue
    {
        var params: [String: JSONValue] = ["threadId": .string(threadId), "objective": .string(objective), "origin": "user"]
        if let tokenBudget { params["tokenBudget"] = .number(Double(tokenBudget)) }
        let result = try await request("thread/goal/set", params: .object(params), timeout: timeout)
        guard let goal = result["goal"], goal.objectValue != nil else {
            throw CodexError.protocolViolation("missing thread/goal/set result.goal")
        }
        return goal
    }

    /// `thread/goal/clear {threadId, origin: "user"}` → whether there was a goal.
    @discardableResult
    public func threadGoalClear(threadId: String, timeout: Duration = .seconds(60)) async throws -> Bool {
        let result = try await request("thread/goal/clear", params: ["threadId": .string(threadId), "origin": "user"], timeout: timeout)
        return result["cleared"]?.boolValue ?? false
    }

    /// `thread/goal/get {threadId}` → the thread's goal object, or nil when it has none.
    public func threadGoalGet(threadId: String, timeout: Duration = .seconds(60)) async throws -> JSONValue? {
        let result = try await request("thread/goal/get", params: ["threadId": .string(threadId)], timeout: timeout)
        guard let goal = result["goal"], goal.objectValue != nil else { return nil }
        return goal
    }
}
