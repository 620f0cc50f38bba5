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

/// `reorderQueued {threadId, ids}`: the thread's queued messages in a new order (`ids`: every waiting `queuedId`,
/// each once).
public struct ReorderQueued: ThreadPayload {
    public var threadId: String
    public var ids: [String]
    public init(threadId: String, ids: [String]) {
        self.threadId = threadId
        self.ids = ids
    }
}

/// `editQueued {threadId, queuedId, text}`: new text for a queued message that has not started. The first form,
/// `{threadId, id, text}`, named the message by the frame's `id` (so the request's id was its `queuedId`); a frame
/// without `queuedId` is still read that way. Encoded in the new form only.
public struct EditQueued: ThreadPayload {
    public var threadId: String
    /// The message to edit.
    public var queuedId: String
    public var text: String
    public init(threadId: String, queuedId: String, text: String) {
        self.threadId = threadId
        self.queuedId = queuedId
        self.text = text
    }

    enum CodingKeys: CodingKey { case threadId, queuedId, id, text }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        threadId = try container.decode(String.self, forKey: .threadId)
        text = try container.decode(String.self, forKey: .text)
        // `queuedId` when present (even with an `id`, which is then only the request's); else the first form's `id`.
        queuedId = try container.decodeIfPresent(String.self, forKey: .queuedId) ?? container.decode(String.self, forKey: .id)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(threadId, forKey: .threadId)
        try container.encode(queuedId, forKey: .queuedId)
        try container.encode(text, forKey: .text)
    }
}

/// One waiting message as `queueChanged` lists it: what `messageQueued` announced, with its text as edited.
public struct QueuedItem: Codable, Sendable, Hashable {
    public var queuedId: String
    public var text: String
    public var model: String?
    public var effort: String?
    public var attachments: [String]?
    public var collaborationMode: CollaborationMode?
    public var deviceId: String?
    public init(_ queued: MessageQueued) {
        self.queuedId = queued.queuedId
        self.text = queued.text
        self.model = queued.model
        self.effort = queued.effort
        self.attachments = queued.attachments
        self.collaborationMode = queued.collaborationMode
        self.deviceId = queued.deviceId
    }
}

/// `queueChanged {seq, threadId, items}`: the thread's whole queue, in the order the messages will start, after any
/// change (queued, started, cancelled, failed, reordered, edited, announced again after a restart).
public struct QueueChanged: Codable, Sendable, Hashable {
    public var seq: Int64
    public var threadId: String
    public var items: [QueuedItem]
    public init(seq: Int64, threadId: String, items: [QueuedItem]) {
        self.seq = seq
        self.threadId = threadId
        self.items = items
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
