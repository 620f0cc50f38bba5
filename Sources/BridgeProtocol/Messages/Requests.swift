/// `listThreads {limit?, cursor?, archived?, includeInternal?}`: with `archived: true` only archived threads, else
/// only the others; with `includeInternal: true` also Codex's review and compaction sub-threads.
public struct ListThreads: RequestPayload {
    public var limit: Int?
    public var cursor: String?
    public var archived: Bool?
    /// Also the sub-threads Codex runs for itself (reviews, compactions); hidden by default.
    public var includeInternal: Bool?
    public init(limit: Int? = nil, cursor: String? = nil, archived: Bool? = nil, includeInternal: Bool? = nil) {
        self.limit = limit
        self.cursor = cursor
        self.archived = archived
        self.includeInternal = includeInternal
    }
}

/// `startThread {cwd, prompt, model?, effort?, sandbox?, approvalPolicy?, approvalsReviewer?, attachments?,
/// collaborationMode?}`.
public struct StartThread: MachinePayload {
    public var cwd: String
    public var prompt: String
    public var model: String?
    /// A reasoning effort the model supports (`listModels`), e.g. `low`, `medium`, `high`.
    public var effort: String?
    /// `read-only`, `workspace-write` or `danger-full-access`.
    public var sandbox: String?
    /// `untrusted`, `on-failure`, `on-request` or `never`.
    public var approvalPolicy: String?
    /// `uploadId`s from `POST /uploads`, passed to Codex as images or audio.
    public var attachments: [String]?
    /// Run the thread in a new git worktree on a new branch (`cwd` must be inside a repository).
    public var worktree: WorktreeRequest?
    /// `plan` or `default`; the thread remembers it for its later turns.
    public var collaborationMode: CollaborationMode?
    /// In a fleet session: the machine to start it on (its id from `helloAck.machines`); absent: this bridge.
    public var machine: String?
    /// `user` (the default) or `auto_review`: who answers the thread's approval requests.
    public var approvalsReviewer: ApprovalsReviewer?
    public init(
        cwd: String, prompt: String, model: String? = nil, sandbox: String? = nil, approvalPolicy: String? = nil, effort: String? = nil,
        attachments: [String]? = nil, worktree: WorktreeRequest? = nil, collaborationMode: CollaborationMode? = nil,
        approvalsReviewer: ApprovalsReviewer? = nil
    ) {
        self.approvalsReviewer = approvalsReviewer
        self.collaborationMode = collaborationMode
        self.attachments = attachments
        self.worktree = worktree
        self.cwd = cwd
        self.prompt = prompt
        self.model = model
        self.effort = effort
        self.sandbox = sandbox
        self.approvalPolicy = approvalPolicy
    }
}

extension StartThread {
    public func auditDetail(answer: BridgeResponse?) -> String? { cwd }
}

/// `sendMessage {threadId, text, model?, effort?, mode?, attachments?, collaborationMode?}`: steers the running turn (or, with
/// `mode: "queue"`, holds the message until it ends), or starts a new one (with the model and effort given, which
/// the thread then keeps).
public struct SendMessage: ThreadPayload {
    public var threadId: String
    public var text: String
    public var model: String?
    public var effort: String?
    /// `steer` (the default) or `queue`.
    public var mode: SendMode?
    /// `uploadId`s from `POST /uploads`.
    public var attachments: [String]?
    /// `plan` or `default` for the turn it starts; the thread remembers it for its later turns.
    public var collaborationMode: CollaborationMode?
    public init(
        threadId: String, text: String, model: String? = nil, effort: String? = nil, mode: SendMode? = nil, attachments: [String]? = nil,
        collaborationMode: CollaborationMode? = nil
    ) {
        self.collaborationMode = collaborationMode
        self.mode = mode
        self.attachments = attachments
        self.threadId = threadId
        self.text = text
        self.model = model
        self.effort = effort
    }
}

/// `renameThread {threadId, name}`.
public struct RenameThread: ThreadPayload {
    public var threadId: String
    public var name: String
    public init(threadId: String, name: String) {
        self.threadId = threadId
        self.name = name
    }
}

/// `readFile {threadId, path}`: a file under the thread's directory (relative to it, or absolute inside it).
public struct ReadFile: ThreadPayload {
    public var threadId: String
    public var path: String
    public init(threadId: String, path: String) {
        self.threadId = threadId
        self.path = path
    }
}

/// `usage {}`: what is left of the account's rate limits.
public struct UsageRequest: RequestPayload {
    public init() {}
}

/// `listModels {}`.
public struct ListModels: RequestPayload {
    public init() {}
}

/// A request that names one thread: `interrupt`, `unsubscribe`, `getDiff`, ….
public struct ThreadRef: ThreadPayload {
    public var threadId: String
    public init(threadId: String) { self.threadId = threadId }
}

/// `subscribe {threadId | "*", afterSeq?}`.
public struct Subscribe: ThreadPayload {
    /// A thread id, or `"*"` for every thread.
    public var threadId: String
    /// Replay journaled events of the subscription after this seq before going live.
    public var afterSeq: Int64?
    public init(threadId: String, afterSeq: Int64? = nil) {
        self.threadId = threadId
        self.afterSeq = afterSeq
    }
}

extension Subscribe {
    public var targetThreadId: String? { threadId == "*" ? nil : threadId }
}

/// `approve {approvalId, decision}`.
public struct Approve: RequestPayload {
    public var approvalId: String
    public var decision: ApprovalDecision
    public init(approvalId: String, decision: ApprovalDecision) {
        self.approvalId = approvalId
        self.decision = decision
    }
}

extension Approve {
    public func auditDetail(answer: BridgeResponse?) -> String? { decision.rawValue }
}

/// How an approval is answered.
public enum ApprovalDecision: String, Codable, Sendable, Hashable, CaseIterable {
    case accept
    case acceptForSession
    case decline
    case cancel
}

/// `listDirectory {path}`: the entries of a directory inside the bridge's roots (for choosing a thread's cwd).
public struct ListDirectory: MachinePayload {
    /// An absolute path inside one of the roots.
    public var path: String
    /// In a fleet session: the machine whose directory to list; absent: this bridge.
    public var machine: String?
    public init(path: String, machine: String? = nil) {
        self.path = path
        self.machine = machine
    }
}
