/// One thread in a `threads` answer.
public struct ThreadSummary: Codable, Sendable, Hashable {
    public var threadId: String
    public var cwd: String?
    public var preview: String?
    /// `idle`, `active`, `notLoaded`, … as Codex reports it.
    public var status: String?
    /// Seconds since 1970.
    public var updatedAt: Double?
    public init(threadId: String, cwd: String? = nil, preview: String? = nil, status: String? = nil, updatedAt: Double? = nil) {
        self.threadId = threadId
        self.cwd = cwd
        self.preview = preview
        self.status = status
        self.updatedAt = updatedAt
    }
}

/// `threads {threads, nextCursor?}`: the answer to `listThreads`.
public struct ThreadList: Codable, Sendable, Hashable {
    public var threads: [ThreadSummary]
    public var nextCursor: String?
    public init(threads: [ThreadSummary], nextCursor: String? = nil) {
        self.threads = threads
        self.nextCursor = nextCursor
    }
}

/// `threadStarted {threadId, turnId, cwd}`: the answer to `startThread`.
public struct ThreadStarted: Codable, Sendable, Hashable {
    public var threadId: String
    public var turnId: String
    public var cwd: String
    public init(threadId: String, turnId: String, cwd: String) {
        self.threadId = threadId
        self.turnId = turnId
        self.cwd = cwd
    }
}

/// `accepted {threadId?, turnId?, approvalId?}`: the answer to `sendMessage`, `interrupt` and `approve`.
public struct Accepted: Codable, Sendable, Hashable {
    public var threadId: String?
    public var turnId: String?
    public var approvalId: String?
    public init(threadId: String? = nil, turnId: String? = nil, approvalId: String? = nil) {
        self.threadId = threadId
        self.turnId = turnId
        self.approvalId = approvalId
    }
}

/// `subscribed {threadId, resume?, lastSeq?}` / `unsubscribed {threadId}`.
public struct SubscriptionChanged: Codable, Sendable, Hashable {
    public var threadId: String
    public var resume: ResumeStatus?
    public var lastSeq: Int64?
    public init(threadId: String, resume: ResumeStatus? = nil, lastSeq: Int64? = nil) {
        self.threadId = threadId
        self.resume = resume
        self.lastSeq = lastSeq
    }
}

/// `thread {thread}`: the answer to `readThread`; `thread` is Codex's thread object with its turns and items.
public struct ThreadSnapshot: Codable, Sendable, Hashable {
    public var thread: JSONValue
    public init(thread: JSONValue) { self.thread = thread }
}

/// `diff {threadId, diff}`: the answer to `getDiff`.
public struct ThreadDiff: Codable, Sendable, Hashable {
    public var threadId: String
    public var diff: String
    public init(threadId: String, diff: String) {
        self.threadId = threadId
        self.diff = diff
    }
}

/// One entry of a `directory` answer.
public struct DirectoryEntry: Codable, Sendable, Hashable {
    /// What an entry is.
    public enum Kind: String, Codable, Sendable, Hashable {
        case dir
        case file
    }

    /// The entry's name (no path).
    public var name: String
    public var kind: Kind
    /// For a directory: whether it is the top of a git repository (holds `.git`).
    public var git: Bool

    public init(name: String, kind: Kind, git: Bool = false) {
        self.name = name
        self.kind = kind
        self.git = git
    }
}

/// `directory {path, entries}`: the answer to `listDirectory`; directories first, then files, each by name.
public struct DirectoryListing: Codable, Sendable, Hashable {
    /// The directory listed, resolved (symbolic links followed).
    public var path: String
    public var entries: [DirectoryEntry]
    /// True when the directory held more entries than were returned.
    public var truncated: Bool?

    public init(path: String, entries: [DirectoryEntry], truncated: Bool? = nil) {
        self.path = path
        self.entries = entries
        self.truncated = truncated
    }
}

/// The successful answer to a request.
public enum BridgeResponse: Sendable, Hashable {
    case threads(ThreadList)
    case threadStarted(ThreadStarted)
    case accepted(Accepted)
    case subscribed(SubscriptionChanged)
    case unsubscribed(SubscriptionChanged)
    case thread(ThreadSnapshot)
    case diff(ThreadDiff)
    case directory(DirectoryListing)

    /// The wire `kind` of this answer.
    public var kind: String {
        switch self {
        case .threads: "threads"
        case .threadStarted: "threadStarted"
        case .accepted: "accepted"
        case .subscribed: "subscribed"
        case .unsubscribed: "unsubscribed"
        case .thread: "thread"
        case .diff: "diff"
        case .directory: "directory"
        }
    }
}
