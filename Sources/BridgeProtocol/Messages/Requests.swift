/// `listThreads {limit?, cursor?, archived?, includeInternal?}`: with `archived: true` only archived threads, else
/// only the others; with `includeInternal: true` also Codex's review and compaction sub-threads.
public struct ListThreads: Codable, Sendable, Hashable {
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
public struct StartThread: Codable, Sendable, Hashable {
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

/// `sendMessage {threadId, text, model?, effort?, mode?, attachments?, collaborationMode?}`: steers the running turn (or, with
/// `mode: "queue"`, holds the message until it ends), or starts a new one (with the model and effort given, which
/// the thread then keeps).
public struct SendMessage: Codable, Sendable, Hashable {
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
public struct RenameThread: Codable, Sendable, Hashable {
    public var threadId: String
    public var name: String
    public init(threadId: String, name: String) {
        self.threadId = threadId
        self.name = name
    }
}

/// `readFile {threadId, path}`: a file under the thread's directory (relative to it, or absolute inside it).
public struct ReadFile: Codable, Sendable, Hashable {
    public var threadId: String
    public var path: String
    public init(threadId: String, path: String) {
        self.threadId = threadId
        self.path = path
    }
}

/// `usage {}`: what is left of the account's rate limits.
public struct UsageRequest: Codable, Sendable, Hashable {
    public init() {}
}

/// `listModels {}`.
public struct ListModels: Codable, Sendable, Hashable {
    public init() {}
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
    /// In a fleet session: the machine whose directory to list; absent: this bridge.
    public var machine: String?
    public init(path: String, machine: String? = nil) {
        self.path = path
        self.machine = machine
    }
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
    case listModels(ListModels)
    case renameThread(RenameThread)
    case archiveThread(ThreadRef)
    case unarchiveThread(ThreadRef)
    case readFile(ReadFile)
    case usage(UsageRequest)
    case pushSubscribe(PushSubscribe)
    case pushUnsubscribe(PushUnsubscribe)
    case presence(Presence)
    case answerInput(AnswerInput)
    case cancelQueued(CancelQueued)
    case searchFiles(SearchFiles)
    case startReview(StartReview)
    case forkThread(ForkThread)
    case listSkills(ListSkills)
    case gitStatus(ThreadRef)
    case gitCommit(GitCommit)
    case gitBranch(GitBranch)
    case gitSwitch(GitSwitch)
    case gitPush(GitPush)
    case gitCommitMessage(ThreadRef)
    case gitPullRequest(GitPullRequest)
    case runCommand(RunCommand)
    case stopCommand(StopCommand)
    case removeWorktree(RemoveWorktree)
    case listDevices(ListDevices)
    case setDeviceScopes(SetDeviceScopes)
    case renameDevice(RenameDevice)
    case requestScopes(RequestScopes)
    case revokeDevice(RevokeDevice)
    case pairDevice(PairDevice)
    case listAudit(ListAudit)
    case setGoal(SetGoal)
    case clearGoal(ThreadRef)
    case listMachines(ListMachines)
    case addMachine(AddMachine)
    case removeMachine(RemoveMachine)
    case renameMachine(RenameMachine)
    case compactThread(ThreadRef)
    case deleteThread(ThreadRef)
    case searchThreads(SearchThreads)
    case updateThreadSettings(UpdateThreadSettings)
    case approveDeniedAction(ApproveDeniedAction)
    case listPreviews(ThreadRef)
    case openPreview(OpenPreview)

    /// The wire `kind` of this request.
    public var kind: String { requestKind.rawValue }

    /// The kind of this request.
    public var requestKind: RequestKind {
        switch self {
        case .listThreads: .listThreads
        case .startThread: .startThread
        case .sendMessage: .sendMessage
        case .interrupt: .interrupt
        case .subscribe: .subscribe
        case .unsubscribe: .unsubscribe
        case .readThread: .readThread
        case .getDiff: .getDiff
        case .approve: .approve
        case .listDirectory: .listDirectory
        case .listModels: .listModels
        case .renameThread: .renameThread
        case .archiveThread: .archiveThread
        case .unarchiveThread: .unarchiveThread
        case .readFile: .readFile
        case .usage: .usage
        case .pushSubscribe: .pushSubscribe
        case .pushUnsubscribe: .pushUnsubscribe
        case .presence: .presence
        case .answerInput: .answerInput
        case .cancelQueued: .cancelQueued
        case .searchFiles: .searchFiles
        case .startReview: .startReview
        case .forkThread: .forkThread
        case .listSkills: .listSkills
        case .gitStatus: .gitStatus
        case .gitCommit: .gitCommit
        case .gitBranch: .gitBranch
        case .gitSwitch: .gitSwitch
        case .gitPush: .gitPush
        case .gitCommitMessage: .gitCommitMessage
        case .gitPullRequest: .gitPullRequest
        case .runCommand: .runCommand
        case .stopCommand: .stopCommand
        case .removeWorktree: .removeWorktree
        case .listDevices: .listDevices
        case .setDeviceScopes: .setDeviceScopes
        case .renameDevice: .renameDevice
        case .requestScopes: .requestScopes
        case .revokeDevice: .revokeDevice
        case .pairDevice: .pairDevice
        case .listAudit: .listAudit
        case .setGoal: .setGoal
        case .clearGoal: .clearGoal
        case .listMachines: .listMachines
        case .addMachine: .addMachine
        case .removeMachine: .removeMachine
        case .renameMachine: .renameMachine
        case .compactThread: .compactThread
        case .deleteThread: .deleteThread
        case .searchThreads: .searchThreads
        case .updateThreadSettings: .updateThreadSettings
        case .approveDeniedAction: .approveDeniedAction
        case .listPreviews: .listPreviews
        case .openPreview: .openPreview
        }
    }

    /// The thread this request acts on, when it names one (`"*"` names none).
    public var threadId: String? {
        switch self {
        case .sendMessage(let message): message.threadId
        case .interrupt(let ref), .unsubscribe(let ref), .readThread(let ref), .getDiff(let ref), .archiveThread(let ref),
            .unarchiveThread(let ref):
            ref.threadId
        case .renameThread(let rename): rename.threadId
        case .readFile(let read): read.threadId
        case .cancelQueued(let cancel): cancel.threadId
        case .searchFiles(let search): search.threadId
        case .startReview(let review): review.threadId
        case .forkThread(let fork): fork.threadId
        case .listSkills(let list): list.threadId
        case .gitStatus(let ref), .gitCommitMessage(let ref): ref.threadId
        case .gitCommit(let commit): commit.threadId
        case .gitBranch(let branch): branch.threadId
        case .gitSwitch(let change): change.threadId
        case .gitPush(let push): push.threadId
        case .gitPullRequest(let request): request.threadId
        case .runCommand(let run): run.threadId
        case .stopCommand(let stop): stop.threadId
        case .removeWorktree(let remove): remove.threadId
        case .setGoal(let goal): goal.threadId
        case .clearGoal(let ref), .compactThread(let ref), .deleteThread(let ref): ref.threadId
        case .updateThreadSettings(let update): update.threadId
        case .approveDeniedAction(let approve): approve.threadId
        case .listPreviews(let ref): ref.threadId
        case .openPreview(let open): open.threadId
        case .subscribe(let subscription): subscription.threadId == "*" ? nil : subscription.threadId
        case .listThreads, .startThread, .approve, .listDirectory, .listModels, .usage, .pushSubscribe, .pushUnsubscribe, .presence,
            .answerInput, .listDevices, .setDeviceScopes, .renameDevice, .requestScopes, .revokeDevice, .pairDevice, .listAudit,
            .searchThreads, .listMachines, .addMachine, .removeMachine, .renameMachine:
            nil
        }
    }

    /// Every request kind's wire name.
    public static let kinds: Set<String> = Set(RequestKind.allCases.map(\.rawValue))
}

/// Every request a client may send, by its wire `kind`: decoding (``ClientMessage/decode(_:)``) switches over it,
/// so a kind cannot be listed here without being decoded, and a test checks that BRIDGE.md documents each.
public enum RequestKind: String, CaseIterable, Sendable {
    case listThreads
    case startThread
    case sendMessage
    case interrupt
    case subscribe
    case unsubscribe
    case readThread
    case getDiff
    case approve
    case listDirectory
    case listModels
    case renameThread
    case archiveThread
    case unarchiveThread
    case readFile
    case usage
    case pushSubscribe
    case pushUnsubscribe
    case presence
    case answerInput
    case cancelQueued
    case searchFiles
    case startReview
    case forkThread
    case listSkills
    case gitStatus
    case gitCommit
    case gitBranch
    case gitSwitch
    case gitPush
    case gitCommitMessage
    case gitPullRequest
    case runCommand
    case stopCommand
    case removeWorktree
    case listDevices
    case setDeviceScopes
    case renameDevice
    case requestScopes
    case revokeDevice
    case pairDevice
    case listAudit
    case setGoal
    case clearGoal
    case listMachines
    case addMachine
    case removeMachine
    case renameMachine
    case compactThread
    case deleteThread
    case searchThreads
    case updateThreadSettings
    case approveDeniedAction
    case listPreviews
    case openPreview
}
