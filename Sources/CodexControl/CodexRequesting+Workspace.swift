import BridgeProtocol

/// Typed calls for the rest of what the bridge asks Codex: forks, unsubscribing, models, skills, rate limits
/// and sandboxed commands. Each names its method and params once, here.
extension CodexRequesting {
    /// `thread/fork {threadId, cwd, sandbox, approvalPolicy, excludeTurns: true, lastTurnId?}` → the result
    /// (`thread` with its new `id`).
    public func threadFork(
        threadId: String, cwd: String, sandbox: String, approvalPolicy: String, throughTurn turnId: String? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> JSONValue {
        var params: [String: JSONValue] = [
            "threadId": .string(threadId), "cwd": .string(cwd), "sandbox": .string(sandbox),
            "approvalPolicy": .string(approvalPolicy), "excludeTurns": true,
        ]
        if let turnId { params["lastTurnId"] = .string(turnId) }
        return try await request("thread/fork", params: .object(params), timeout: timeout)
    }

    /// `thread/unsubscribe {threadId}`: this client stops receiving the thread's events.
    public func threadUnsubscribe(threadId: String, timeout: Duration = .seconds(10)) async throws {
        _ = try await request("thread/unsubscribe", params: ["threadId": .string(threadId)], timeout: timeout)
    }

    /// `model/list {}` → `{data: [Model]}`.
    public func modelList(timeout: Duration = .seconds(60)) async throws -> JSONValue {
        try await request("model/list", params: [:], timeout: timeout)
    }

    /// `skills/list {cwds: [cwd]}` → `{data: [{cwd, skills: [...]}]}`.
    public func skillsList(cwd: String, timeout: Duration = .seconds(60)) async throws -> JSONValue {
        try await request("skills/list", params: ["cwds": [.string(cwd)]], timeout: timeout)
    }

    /// `account/rateLimits/read {}` → `{rateLimits}`.
    public func accountRateLimits(timeout: Duration = .seconds(60)) async throws -> JSONValue {
        try await request("account/rateLimits/read", params: [:], timeout: timeout)
    }

    /// `command/exec {command: argv, cwd, sandboxPolicy, processId, streamStdoutStderr: true, timeoutMs,
    /// outputBytesCap}`: runs a command in Codex's sandbox, its output streamed as
    /// `command/exec/outputDelta` notifications → `{exitCode, stdout?, stderr?}` once it ends.
    public func commandExec(
        _ argv: [String], cwd: String, sandboxPolicy: JSONValue, processId: String, commandTimeout: Duration, outputCap: Int,
        timeout: Duration
    ) async throws -> JSONValue {
        let params: JSONValue = [
            "command": .array(argv.map { .string($0) }), "cwd": .string(cwd), "sandboxPolicy": sandboxPolicy,
            "processId": .string(processId), "streamStdoutStderr": true,
            "timeoutMs": .number(Double(commandTimeout.components.seconds * 1000)), "outputBytesCap": .number(Double(outputCap)),
        ]
        return try await request("command/exec", params: params, timeout: timeout)
    }

    /// `command/exec/terminate {processId}`.
    public func commandExecTerminate(processId: String, timeout: Duration = .seconds(60)) async throws {
        _ = try await request("command/exec/terminate", params: ["processId": .string(processId)], timeout: timeout)
    }

    /// `review/start {threadId, target, delivery: "inline"}` → the review's turn id.
    public func reviewStart(threadId: String, target: JSONValue, timeout: Duration = .seconds(60)) async throws -> String {
        let result = try await request(
            "review/start", params: ["threadId": .string(threadId), "target": target, "delivery": "inline"], timeout: timeout)
        guard let turnId = result["turn"]?["id"]?.stringValue else {
            throw CodexError.protocolViolation("missing review/start result.turn.id")
        }
        return turnId
    }

    /// `thread/start {cwd, ephemeral: true, sandbox: "read-only", approvalPolicy: "never"}`: a thread of the
    /// bridge's own that is never stored → its id.
    public func ephemeralReadOnlyThreadStart(cwd: String, timeout: Duration = .seconds(60)) async throws -> String {
        let result = try await request(
            "thread/start", params: ["cwd": .string(cwd), "ephemeral": true, "sandbox": "read-only", "approvalPolicy": "never"],
            timeout: timeout)
        guard let threadId = result["thread"]?["id"]?.stringValue else {
            throw CodexError.protocolViolation("missing thread/start result.thread.id")
        }
        return threadId
    }

    /// `thread/name/set {threadId, name}`.
    public func threadNameSet(threadId: String, name: String, timeout: Duration = .seconds(60)) async throws {
        _ = try await request("thread/name/set", params: ["threadId": .string(threadId), "name": .string(name)], timeout: timeout)
    }

    /// `thread/archive {threadId}` or, with `archived` false, `thread/unarchive {threadId}`.
    public func threadSetArchived(threadId: String, archived: Bool, timeout: Duration = .seconds(60)) async throws {
        _ = try await request(archived ? "thread/archive" : "thread/unarchive", params: ["threadId": .string(threadId)], timeout: timeout)
    }

    /// `fuzzyFileSearch {query, roots: [root]}` → `{files: [{root, path, match_type, score}]}`.
    public func fuzzyFileSearch(query: String, root: String, timeout: Duration = .seconds(60)) async throws -> JSONValue {
        try await request("fuzzyFileSearch", params: ["query": .string(query), "roots": [.string(root)]], timeout: timeout)
    }
}
