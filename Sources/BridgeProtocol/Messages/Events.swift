/// `event {seq, threadId, turnId?, type, data}`: one Codex notification of a subscribed thread.
public struct ThreadEvent: Codable, Sendable, Hashable {
    /// Increases by one per journaled message, bridge-wide.
    public var seq: Int64
    public var threadId: String
    public var turnId: String?
    /// The Codex method, e.g. `turn/started`, `item/agentMessage/delta`, `turn/completed`; or a bridge event
    /// such as `bridge/turnFailed`.
    public var type: String
    /// The notification's params, unchanged.
    public var data: JSONValue
    public init(seq: Int64, threadId: String, turnId: String? = nil, type: String, data: JSONValue) {
        self.seq = seq
        self.threadId = threadId
        self.turnId = turnId
        self.type = type
        self.data = data
    }
}

/// `approvalRequest`: Codex asks whether it may run a command or change files.
public struct ApprovalRequest: Codable, Sendable, Hashable {
    public var seq: Int64
    public var approvalId: String
    public var threadId: String
    public var turnId: String?
    public var itemId: String?
    /// `command`, `fileChange`, `permissions`, …
    public var type: String
    public var command: String?
    public var cwd: String?
    public var reason: String?
    public var changes: JSONValue?
    public init(
        seq: Int64, approvalId: String, threadId: String, turnId: String?, itemId: String?, type: String,
        command: String? = nil, cwd: String? = nil, reason: String? = nil, changes: JSONValue? = nil
    ) {
        self.seq = seq
        self.approvalId = approvalId
        self.threadId = threadId
        self.turnId = turnId
        self.itemId = itemId
        self.type = type
        self.command = command
        self.cwd = cwd
        self.reason = reason
        self.changes = changes
    }
}

/// `approvalResolved`: an approval was answered (by `deviceId`, when a paired device answered it).
public struct ApprovalResolved: Codable, Sendable, Hashable {
    public var seq: Int64
    public var approvalId: String
    public var threadId: String
    public var decision: ApprovalDecision
    public var deviceId: String?
    /// True when another client of a shared Codex app-server (the terminal's Codex) answered first; `decision`
    /// is then what the item's outcome shows (`cancel` when the turn ended without it).
    public var answeredElsewhere: Bool?
    /// The answering device's name at the time (a paired device).
    public var deviceName: String?
    /// When it was answered, Unix seconds.
    public var at: Int64?
    public init(
        seq: Int64, approvalId: String, threadId: String, decision: ApprovalDecision, deviceId: String? = nil,
        answeredElsewhere: Bool? = nil, deviceName: String? = nil, at: Int64? = nil
    ) {
        self.seq = seq
        self.approvalId = approvalId
        self.threadId = threadId
        self.decision = decision
        self.deviceId = deviceId
        self.answeredElsewhere = answeredElsewhere
        self.deviceName = deviceName
        self.at = at
    }
}
