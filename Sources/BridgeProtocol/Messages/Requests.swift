/// `listThreads {limit?, cursor?}`.
public struct ListThreads: Codable, Sendable, Hashable {
    public var limit: Int?
    public var cursor: String?
    public init(limit: Int? = nil, cursor: String? = nil) {
        self.limit = limit
        self.cursor = cursor
    }
}

/// `startThread {cwd, prompt, model?, sandbox?, approvalPolicy?}`.
public struct StartThread: Codable, Sendable, Hashable {
    public var cwd: String
    public var prompt: String
    public var model: String?
    /// `read-only`, `workspace-write` or `danger-full-access`.
    public var sandbox: String?
    /// `untrusted`, `on-failure`, `on-request` or `never`.
    public var approvalPolicy: String?
    public init(cwd: String, prompt: String, model: String? = nil, sandbox: String? = nil, approvalPolicy: String? = nil) {
        self.cwd = cwd
        self.prompt = prompt
        self.model = model
        self.sandbox = sandbox
        self.approvalPolicy = approvalPolicy
    }
}

/// `sendMessage {threadId, text}`: steers the running turn, or starts a new one.
public struct SendMessage: Codable, Sendable, Hashable {
    public var threadId: String
    public var text: String
    public init(threadId: String, text: String) {
        self.threadId = threadId
        self.text = text
    }
}

/// A request that names one thread: `interrupt`, `unsubscribe`, `readThread`, `getDiff`.
public struct ThreadRef: Codable, Sendable, Hashable {
    public var threadId: String
    public init(threadId: String) { self.threadId = threadId }
}

/// `subscribe {threadId | "*", afterSeq?}`.
public struct Subscribe: Codable, Sendable, Hashable {
    /// A thread id, or `"*"` for every thread.
    public var threadId: String
    /// Replay journaled events of the subscription after this seq before going live.
    public var afterSeq: Int64?
    public init(threadId: String, afterSeq: Int64? = nil) {
        self.threadId = threadId
        self.afterSeq = afterSeq
    }
}

/// `approve {approvalId, decision}`.
public struct Approve: Codable, Sendable, Hashable {
    public var approvalId: String
    public var decision: ApprovalDecision
    public init(approvalId: String, decision: ApprovalDecision) {
        self.approvalId = approvalId
        self.decision = decision
    }
}

/// How an approval is answered.
public enum ApprovalDecision: String, Codable, Sendable, Hashable, CaseIterable {
    case accept
    case acceptForSession
    case decline
    case cancel
}

/// `listDirectory {path}`: the entries of a directory inside the bridge's roots (for choosing a thread's cwd).
public struct ListDirectory: Codable, Sendable, Hashable {
    /// An absolute path inside one of the roots.
    public var path: String
    public init(path: String) { self.path = path }
}

/// Every request a client can make; each travels with a client-chosen `id`.
public enum BridgeRequest: Sendable, Hashable {
    case listThreads(ListThreads)
    case startThread(StartThread)
    case sendMessage(SendMessage)
    case interrupt(ThreadRef)
    case subscribe(Subscribe)
    case unsubscribe(ThreadRef)
    case readThread(ThreadRef)
    case getDiff(ThreadRef)
    case approve(Approve)
    case listDirectory(ListDirectory)

    /// The wire `kind` of this request.
    public var kind: String {
        switch self {
        case .listThreads: "listThreads"
        case .startThread: "startThread"
        case .sendMessage: "sendMessage"
        case .interrupt: "interrupt"
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .readThread: "readThread"
        case .getDiff: "getDiff"
        case .approve: "approve"
        case .listDirectory: "listDirectory"
        }
    }

    /// The thread this request acts on, when it names one (`"*"` names none).
    public var threadId: String? {
        switch self {
        case .sendMessage(let message): message.threadId
        case .interrupt(let ref), .unsubscribe(let ref), .readThread(let ref), .getDiff(let ref): ref.threadId
        case .subscribe(let subscription): subscription.threadId == "*" ? nil : subscription.threadId
        case .listThreads, .startThread, .approve, .listDirectory: nil
        }
    }

    /// Every request kind.
    public static let kinds: Set<String> = [
        "listThreads", "startThread", "sendMessage", "interrupt", "subscribe", "unsubscribe", "readThread",
        "getDiff", "approve", "listDirectory",
    ]
}
