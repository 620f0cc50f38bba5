import Foundation

/// One thread in a `threads` answer.
public struct ThreadSummary: Codable, Sendable, Hashable {
    public var threadId: String
    public var cwd: String?
    public var preview: String?
    /// `idle`, `active`, `notLoaded`, … as Codex reports it.
    public var status: String?
    /// Seconds since 1970.
    public var updatedAt: Double?
    /// Which client started it, as Codex reports it: `cli` (the terminal's TUI), `vscode` (app-server clients
    /// such as this bridge), `exec`, `appServer`, `subAgent`, or a custom name.
    public var source: String?
    /// The thread's title when it has one (`renameThread`, or Codex's own naming); show it before `preview`.
    public var name: String?
    /// The model and reasoning effort Codex has configured for it.
    public var model: String?
    public var reasoningEffort: String?
    /// For a thread Codex spawned as a sub-agent: its parent, and the nickname and role Codex gave it.
    public var parentThreadId: String?
    public var agentNickname: String?
    public var agentRole: String?
    /// For a thread in a linked git worktree (such as one `startThread {worktree}` made): the worktree's branch.
    public var branch: String?
    /// … and the main checkout it belongs to.
    public var worktreeOf: String?
    /// The thread's goal, when it has one (`setGoal`, or Codex's own).
    public var goal: ThreadGoal?
    /// The collaboration mode this bridge starts the thread's turns with, when one was chosen.
    public var collaborationMode: CollaborationMode?
    /// In a fleet session: the machine the thread runs on.
    public var machine: MachineRef?
    /// In a `searchThreads` answer: the text around the match, as Codex found it.
    public var snippet: String?
    public init(
        threadId: String, cwd: String? = nil, preview: String? = nil, status: String? = nil, updatedAt: Double? = nil,
        source: String? = nil,
        name: String? = nil, model: String? = nil, reasoningEffort: String? = nil, parentThreadId: String? = nil,
        agentNickname: String? = nil, agentRole: String? = nil, branch: String? = nil, worktreeOf: String? = nil, goal: ThreadGoal? = nil,
        collaborationMode: CollaborationMode? = nil
    ) {
        self.branch = branch
        self.worktreeOf = worktreeOf
        self.goal = goal
        self.collaborationMode = collaborationMode
        self.threadId = threadId
        self.cwd = cwd
        self.preview = preview
        self.status = status
        self.updatedAt = updatedAt
        self.source = source
        self.name = name
        self.model = model
        self.reasoningEffort = reasoningEffort
        self.parentThreadId = parentThreadId
        self.agentNickname = agentNickname
        self.agentRole = agentRole
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
    /// With `startThread {worktree}`: the new branch, and the main checkout the worktree belongs to.
    public var branch: String?
    public var worktreeOf: String?
    public init(threadId: String, turnId: String, cwd: String, branch: String? = nil, worktreeOf: String? = nil) {
        self.branch = branch
        self.worktreeOf = worktreeOf
        self.threadId = threadId
        self.turnId = turnId
        self.cwd = cwd
    }
}

/// `accepted {threadId?, turnId?, approvalId?, requestId?, queuedId?}`: the answer to `sendMessage`, `interrupt`,
/// `approve`, `answerInput` and `cancelQueued`.
public struct Accepted: Codable, Sendable, Hashable {
    public var threadId: String?
    public var turnId: String?
    public var approvalId: String?
    /// `answerInput`: the question answered.
    public var requestId: String?
    /// `sendMessage` with `mode: "queue"` while a turn runs, and `cancelQueued`: the queued message.
    public var queuedId: String?
    /// `runCommand` and `stopCommand`: the command's run.
    public var runId: String?
    public init(
        threadId: String? = nil, turnId: String? = nil, approvalId: String? = nil, requestId: String? = nil, queuedId: String? = nil,
        runId: String? = nil
    ) {
        self.runId = runId
        self.requestId = requestId
        self.queuedId = queuedId
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

/// `thread {thread, goal?, collaborationMode?, plans?, subAgents?, tokenUsage?}`: the answer to `readThread`; `thread` is Codex's thread object
/// with its turns and items; the others are what the bridge knows beside it.
public struct ThreadSnapshot: Codable, Sendable, Hashable {
    public var thread: JSONValue
    /// The thread's goal, when it has one.
    public var goal: ThreadGoal?
    /// The collaboration mode this bridge starts the thread's turns with, when one was chosen.
    public var collaborationMode: CollaborationMode?
    /// The last plan of each turn that had one (`turn/plan/updated`), oldest turn first.
    public var plans: [TurnPlan]?
    /// The sub-agents Codex spawned for the thread since the bridge started.
    public var subAgents: [SubAgent]?
    /// Codex's last `thread/tokenUsage/updated` `tokenUsage` for the thread since the bridge started.
    public var tokenUsage: JSONValue?
    /// With a running turn: its items hold what the journal had up to this seq (text streamed so far included);
    /// a client drops those items' deltas at or below it. (Not `seq`: an answer is no numbered message.)
    public var throughSeq: Int64?
    /// The thread's journaled approvals and questions with their answers (`approvalRequest`, `approvalResolved`,
    /// `inputRequest`, `inputResolved` frames as they were sent), oldest first, the newest 400.
    public var requests: [JSONValue]?
    /// With `readThread {turns}`: the cursor for `readTurns` to the turns before those returned; absent when the
    /// answer holds the thread's first turn (or every turn).
    public var olderTurns: String?
    /// The thread's voice transcript parts (`bridge/voiceTranscript`), oldest first, the newest 200.
    public var voice: [VoiceTranscriptPart]?
    public init(
        thread: JSONValue, goal: ThreadGoal? = nil, collaborationMode: CollaborationMode? = nil, plans: [TurnPlan]? = nil,
        subAgents: [SubAgent]? = nil, tokenUsage: JSONValue? = nil, throughSeq: Int64? = nil, requests: [JSONValue]? = nil
    ) {
        self.thread = thread
        self.goal = goal
        self.collaborationMode = collaborationMode
        self.plans = plans
        self.subAgents = subAgents
        self.tokenUsage = tokenUsage
        self.throughSeq = throughSeq
        self.requests = requests
    }
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

/// One model Codex offers (`listModels`).
public struct ModelInfo: Codable, Sendable, Hashable {
    public var id: String
    public var displayName: String
    public var description: String?
    /// The reasoning efforts it supports, e.g. `["low", "medium", "high"]`.
    public var efforts: [String]
    public var defaultEffort: String?
    public var isDefault: Bool

    public init(id: String, displayName: String, description: String? = nil, efforts: [String], defaultEffort: String?, isDefault: Bool) {
        self.id = id
        self.displayName = displayName
        self.description = description
        self.efforts = efforts
        self.defaultEffort = defaultEffort
        self.isDefault = isDefault
    }
}

/// `models {models}`: the answer to `listModels`.
public struct ModelList: Codable, Sendable, Hashable {
    public var models: [ModelInfo]
    public init(models: [ModelInfo]) { self.models = models }
}

/// `file {path, size, mimeType, text? | base64?}`: the answer to `readFile`.
public struct FileContent: Codable, Sendable, Hashable {
    /// The file, resolved (absolute).
    public var path: String
    public var size: Int
    public var mimeType: String
    /// The contents when they are UTF-8 text.
    public var text: String?
    /// The contents otherwise (an image, a binary), base64.
    public var base64: String?

    public init(path: String, size: Int, mimeType: String, text: String? = nil, base64: String? = nil) {
        self.path = path
        self.size = size
        self.mimeType = mimeType
        self.text = text
        self.base64 = base64
    }
}

/// `usage {rateLimits}`: the answer to `usage`; `rateLimits` is Codex's object (`account/rateLimits/read`).
public struct Usage: Codable, Sendable, Hashable {
    public var rateLimits: JSONValue
    public init(rateLimits: JSONValue) { self.rateLimits = rateLimits }
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
    case models(ModelList)
    case file(FileContent)
    case usage(Usage)
    case pushSubscribed(PushSubscribed)
    case files(FileMatches)
    case threadForked(ThreadForked)
    case skills(SkillList)
    case gitStatus(GitStatus)
    case gitCommitted(GitCommitted)
    case gitBranched(GitBranched)
    case gitPushed(GitPushed)
    case commitMessage(CommitMessage)
    case pullRequest(PullRequest)
    case devices(DeviceList)
    case device(DeviceChanged)
    case pairingCode(PairingCodeIssued)
    case scopeRequest(ScopeRequestIssued)
    case audit(AuditList)
    case goal(GoalSet)
    case machines(MachineList)
    case permissionProfiles(PermissionProfileList)
    case collaborationModes(CollaborationModeList)
    case accountUsage(AccountUsage)
    case tools(ToolList)
    case turns(TurnPage)
    case previews(PreviewList)
    case preview(PreviewOpened)
    case voices(VoiceList)
    case voiceStarted(VoiceStarted)

    /// The wire `kind` of this answer.
    public var kind: String { responseKind.rawValue }

    /// The kind of this answer.
    public var responseKind: ResponseKind { parts.kind }

    /// The kind and the members of this answer.
    var parts: (kind: ResponseKind, payload: any Encodable & Sendable) {
        switch self {
        case .threads(let value): (.threads, value)
        case .threadStarted(let value): (.threadStarted, value)
        case .accepted(let value): (.accepted, value)
        case .subscribed(let value): (.subscribed, value)
        case .unsubscribed(let value): (.unsubscribed, value)
        case .thread(let value): (.thread, value)
        case .diff(let value): (.diff, value)
        case .directory(let value): (.directory, value)
        case .models(let value): (.models, value)
        case .file(let value): (.file, value)
        case .usage(let value): (.usage, value)
        case .pushSubscribed(let value): (.pushSubscribed, value)
        case .files(let value): (.files, value)
        case .threadForked(let value): (.threadForked, value)
        case .skills(let value): (.skills, value)
        case .gitStatus(let value): (.gitStatus, value)
        case .gitCommitted(let value): (.gitCommitted, value)
        case .gitBranched(let value): (.gitBranched, value)
        case .gitPushed(let value): (.gitPushed, value)
        case .commitMessage(let value): (.commitMessage, value)
        case .pullRequest(let value): (.pullRequest, value)
        case .devices(let value): (.devices, value)
        case .device(let value): (.device, value)
        case .pairingCode(let value): (.pairingCode, value)
        case .scopeRequest(let value): (.scopeRequest, value)
        case .audit(let value): (.audit, value)
        case .goal(let value): (.goal, value)
        case .machines(let value): (.machines, value)
        case .permissionProfiles(let value): (.permissionProfiles, value)
        case .collaborationModes(let value): (.collaborationModes, value)
        case .accountUsage(let value): (.accountUsage, value)
        case .tools(let value): (.tools, value)
        case .turns(let value): (.turns, value)
        case .previews(let value): (.previews, value)
        case .preview(let value): (.preview, value)
        case .voices(let value): (.voices, value)
        case .voiceStarted(let value): (.voiceStarted, value)
        }
    }
}

/// Every kind of answer a request can get (``RequestDescriptor/answer``); decoding switches over it.
public enum ResponseKind: String, CaseIterable, Sendable {
    case threads
    case threadStarted
    case accepted
    case subscribed
    case unsubscribed
    case thread
    case diff
    case directory
    case models
    case file
    case usage
    case pushSubscribed
    case files
    case threadForked
    case skills
    case gitStatus
    case gitCommitted
    case gitBranched
    case gitPushed
    case commitMessage
    case pullRequest
    case devices
    case device
    case pairingCode
    case scopeRequest
    case audit
    case goal
    case machines
    case permissionProfiles
    case collaborationModes
    case accountUsage
    case tools
    case turns
    case previews
    case preview
    case voices
    case voiceStarted

    /// Decodes the members of an answer of this kind.
    func decode(_ data: Data, decoder: JSONDecoder) throws -> BridgeResponse {
        func payload<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(T.self, from: data) }
        return switch self {
        case .threads: .threads(try payload(ThreadList.self))
        case .threadStarted: .threadStarted(try payload(ThreadStarted.self))
        case .accepted: .accepted(try payload(Accepted.self))
        case .subscribed: .subscribed(try payload(SubscriptionChanged.self))
        case .unsubscribed: .unsubscribed(try payload(SubscriptionChanged.self))
        case .thread: .thread(try payload(ThreadSnapshot.self))
        case .diff: .diff(try payload(ThreadDiff.self))
        case .directory: .directory(try payload(DirectoryListing.self))
        case .models: .models(try payload(ModelList.self))
        case .file: .file(try payload(FileContent.self))
        case .usage: .usage(try payload(Usage.self))
        case .pushSubscribed: .pushSubscribed(try payload(PushSubscribed.self))
        case .files: .files(try payload(FileMatches.self))
        case .threadForked: .threadForked(try payload(ThreadForked.self))
        case .skills: .skills(try payload(SkillList.self))
        case .gitStatus: .gitStatus(try payload(GitStatus.self))
        case .gitCommitted: .gitCommitted(try payload(GitCommitted.self))
        case .gitBranched: .gitBranched(try payload(GitBranched.self))
        case .gitPushed: .gitPushed(try payload(GitPushed.self))
        case .commitMessage: .commitMessage(try payload(CommitMessage.self))
        case .pullRequest: .pullRequest(try payload(PullRequest.self))
        case .devices: .devices(try payload(DeviceList.self))
        case .device: .device(try payload(DeviceChanged.self))
        case .pairingCode: .pairingCode(try payload(PairingCodeIssued.self))
        case .scopeRequest: .scopeRequest(try payload(ScopeRequestIssued.self))
        case .audit: .audit(try payload(AuditList.self))
        case .goal: .goal(try payload(GoalSet.self))
        case .machines: .machines(try payload(MachineList.self))
        case .permissionProfiles: .permissionProfiles(try payload(PermissionProfileList.self))
        case .collaborationModes: .collaborationModes(try payload(CollaborationModeList.self))
        case .accountUsage: .accountUsage(try payload(AccountUsage.self))
        case .tools: .tools(try payload(ToolList.self))
        case .turns: .turns(try payload(TurnPage.self))
        case .previews: .previews(try payload(PreviewList.self))
        case .preview: .preview(try payload(PreviewOpened.self))
        case .voices: .voices(try payload(VoiceList.self))
        case .voiceStarted: .voiceStarted(try payload(VoiceStarted.self))
        }
    }
}
