/// How `sendMessage` treats a turn that is running.
public enum SendMode: String, Codable, Sendable, Hashable, CaseIterable {
    /// Into the running turn (`turn/steer`); today's behaviour and the default.
    case steer
    /// Held by the bridge and started as the next turn when the running one ends.
    case queue
}

/// `cancelQueued {threadId, queuedId}`.
public struct CancelQueued: ThreadPayload {
    public var threadId: String
    public var queuedId: String
    public init(threadId: String, queuedId: String) {
        self.threadId = threadId
        self.queuedId = queuedId
    }
}

/// `messageQueued {seq, threadId, queuedId, text, model?, effort?, attachments?, collaborationMode?, deviceId?}`: a
/// follow-up waits for the running turn to end.
public struct MessageQueued: Codable, Sendable, Hashable {
    public var seq: Int64
    public var threadId: String
    public var queuedId: String
    public var text: String
    public var model: String?
    public var effort: String?
    public var attachments: [String]?
    /// The collaboration mode its turn starts with, when the message named one.
    public var collaborationMode: CollaborationMode?
    public var deviceId: String?
    public init(
        seq: Int64, threadId: String, queuedId: String, text: String, model: String? = nil, effort: String? = nil,
        attachments: [String]? = nil, collaborationMode: CollaborationMode? = nil, deviceId: String? = nil
    ) {
        self.collaborationMode = collaborationMode
        self.seq = seq
        self.threadId = threadId
        self.queuedId = queuedId
        self.text = text
        self.model = model
        self.effort = effort
        self.attachments = attachments
        self.deviceId = deviceId
    }
}

/// Why a queued message left the queue.
public enum UnqueueReason: String, Codable, Sendable, Hashable, CaseIterable {
    /// It became a turn (`turnId`).
    case started
    /// `cancelQueued`.
    case cancelled
    /// Its turn could not start (`message` says why), or the bridge or Codex restarted.
    case failed
}

/// `messageUnqueued {seq, threadId, queuedId, reason, turnId?, message?}`.
public struct MessageUnqueued: Codable, Sendable, Hashable {
    public var seq: Int64
    public var threadId: String
    public var queuedId: String
    public var reason: UnqueueReason
    public var turnId: String?
    public var message: String?
    public init(seq: Int64, threadId: String, queuedId: String, reason: UnqueueReason, turnId: String? = nil, message: String? = nil) {
        self.seq = seq
        self.threadId = threadId
        self.queuedId = queuedId
        self.reason = reason
        self.turnId = turnId
        self.message = message
    }
}

/// `searchFiles {threadId, query, limit?}`: files under the thread's directory whose path matches `query`
/// fuzzily (Codex `fuzzyFileSearch`).
public struct SearchFiles: ThreadPayload {
    public var threadId: String
    public var query: String
    /// At most this many results (1…200, default 50).
    public var limit: Int?
    public init(threadId: String, query: String, limit: Int? = nil) {
        self.threadId = threadId
        self.query = query
        self.limit = limit
    }
}

/// One match of `searchFiles`.
public struct FileMatch: Codable, Sendable, Hashable {
    /// Relative to the thread's directory.
    public var path: String
    public var score: Double
    /// `file` or `directory`.
    public var matchType: String?
    public init(path: String, score: Double, matchType: String? = nil) {
        self.path = path
        self.score = score
        self.matchType = matchType
    }
}

/// `files {threadId, query, files}`: the answer to `searchFiles`, best first.
public struct FileMatches: Codable, Sendable, Hashable {
    public var threadId: String
    public var query: String
    public var files: [FileMatch]
    public init(threadId: String, query: String, files: [FileMatch]) {
        self.threadId = threadId
        self.query = query
        self.files = files
    }
}
