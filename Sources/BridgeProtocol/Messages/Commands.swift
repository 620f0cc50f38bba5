/// `runCommand {threadId, command}`: runs `command` (a shell command line) in the thread's directory through
/// Codex's sandbox, with the thread's sandbox policy; answered `accepted {threadId, runId}`, then the run is
/// reported as `commandStarted`, `commandOutput`… and `commandExited`.
public struct RunCommand: ThreadPayload {
    public var threadId: String
    public var command: String
    public init(threadId: String, command: String) {
        self.threadId = threadId
        self.command = command
    }
}

/// `stopCommand {threadId, runId}`: ends a running command (it then exits with `reason: "stopped"`).
public struct StopCommand: ThreadPayload {
    public var threadId: String
    public var runId: String
    public init(threadId: String, runId: String) {
        self.threadId = threadId
        self.runId = runId
    }
}

/// `commandStarted {seq, threadId, runId, command, cwd, deviceId?}`: a command from a phone began.
public struct CommandStarted: Codable, Sendable, Hashable {
    public var seq: Int64
    public var threadId: String
    public var runId: String
    public var command: String
    public var cwd: String
    /// The paired device that ran it.
    public var deviceId: String?
    public init(seq: Int64, threadId: String, runId: String, command: String, cwd: String, deviceId: String? = nil) {
        self.seq = seq
        self.threadId = threadId
        self.runId = runId
        self.command = command
        self.cwd = cwd
        self.deviceId = deviceId
    }
}

/// `commandOutput {seq, threadId, runId, data}`: the next piece of a command's output (standard output and error
/// as they came, UTF-8 text).
public struct CommandOutput: Codable, Sendable, Hashable {
    public var seq: Int64
    public var threadId: String
    public var runId: String
    public var data: String
    public init(seq: Int64, threadId: String, runId: String, data: String) {
        self.seq = seq
        self.threadId = threadId
        self.runId = runId
        self.data = data
    }
}

/// `commandExited {seq, threadId, runId, exitCode, reason?, truncated?}`: a command ended. `exitCode` is null when
/// it did not exit by itself; `reason` then says why (`stopped`, `timeout`, `codex stopped`, `bridge restarted`,
/// or Codex's refusal).
public struct CommandExited: Codable, Sendable, Hashable {
    public var seq: Int64
    public var threadId: String
    public var runId: String
    public var exitCode: Int?
    public var reason: String?
    /// True when output beyond the cap was left out.
    public var truncated: Bool?
    public init(seq: Int64, threadId: String, runId: String, exitCode: Int?, reason: String? = nil, truncated: Bool? = nil) {
        self.seq = seq
        self.threadId = threadId
        self.runId = runId
        self.exitCode = exitCode
        self.reason = reason
        self.truncated = truncated
    }

    private enum CodingKeys: String, CodingKey { case seq, threadId, runId, exitCode, reason, truncated }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(threadId, forKey: .threadId)
        try container.encode(runId, forKey: .runId)
        try container.encode(exitCode, forKey: .exitCode)  // null when it did not exit by itself
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encodeIfPresent(truncated, forKey: .truncated)
    }
}

/// `removeWorktree {threadId, force?}`: removes the git worktree a `startThread {worktree}` made for the thread
/// (refused with uncommitted changes unless `force`); the branch stays.
public struct RemoveWorktree: ThreadPayload {
    public var threadId: String
    public var force: Bool?
    public init(threadId: String, force: Bool? = nil) {
        self.threadId = threadId
        self.force = force
    }
}

/// `startThread`'s `worktree {branch, from?}`: run the thread in a new worktree on a new branch.
public struct WorktreeRequest: Codable, Sendable, Hashable {
    public var branch: String
    /// Where the branch starts (a branch, tag or commit); `HEAD` of the checkout when absent.
    public var from: String?
    public init(branch: String, from: String? = nil) {
        self.branch = branch
        self.from = from
    }
}
