import BridgeGit
import BridgePreview
import BridgeProtocol
import BridgeStore
import CodexControl
import Logging

/// What a request's handler works with: the services beside the hub, each safe to use from any task, and the
/// hub's state through its narrow port (``HubPort``). Built for each request (``ThreadHub/services``), so it
/// holds the hub without the hub holding it.
struct HubServices: Sendable {
    /// The hub's state: each method one actor step.
    let hub: any HubPort
    let codex: any CodexPort
    let policy: HubPolicy
    /// Roots, sandbox and approval policy (the gate ran before the handler).
    let gate: PolicyGate
    let git: GitService
    let logger: Logger
    let storage: HubStorage
    let auditor: Auditor
    let answers: ExactlyOnce
    let lanes: ThreadLanes
    /// Each session's replays, one after another (a subscription's runs in its handler).
    let replays: SessionReplays
    let deviceAdmin: DeviceAdmin
    let goals: GoalDesk
    let plans: PlanService
    let commands: CommandService
    let commitMessages: CommitMessageWriter
    let threadPolicies: ThreadPolicyKeeper
    let attachments: Attachments
    let push: PushCoordinator?
    let previews: Previews?
    let models: ModelCatalog
    let voice: VoiceService

    /// Codex's thread housekeeping requests, with this bridge's timeout.
    var housekeeping: ThreadHousekeeping { ThreadHousekeeping(codex: codex, timeout: policy.codexTimeout) }

    /// A thread's journaled approvals and questions, for `readThread` and `readTurns`.
    var journaledRequests: JournaledRequests { JournaledRequests(journal: storage.journal, logger: logger) }

    /// A paired device's name (for an answer's `deviceName`); nil for the shared secret or when unknown.
    func deviceName(_ deviceId: String?) async -> String? {
        guard let deviceId else { return nil }
        return try? await storage.devices.device(id: deviceId)?.name
    }
}

/// The hub's state as the handlers beside it see it: reads and changes that are each one step of the hub actor
/// (a check and its act together), none awaiting inside. A handler awaits its I/O between steps and checks again
/// in the step that acts: what needs Codex or the store (a thread's facts, a resume, a subscription's replay, a
/// device's scopes) is read beside the hub (``HubServices/threadFacts(_:)``, ``HubServices/ensureLoaded(_:policy:)``,
/// ``Subscriber``, ``ThreadHub/refreshScopes()``) and kept by a step that takes it only if the hub has not learnt
/// better meanwhile.
protocol HubPort: Actor {
    /// The turn running on `threadId`, if any.
    func runningTurn(of threadId: String) -> String?
    /// Whether a turn runs on `threadId` or its queue is about to start one.
    func isBusy(_ threadId: String) -> Bool
    /// The last diff Codex reported for `threadId` (a directory outside any repository).
    func lastDiff(of threadId: String) -> String?
    /// `conflict` when a turn runs on `threadId` (`what`: the refused verb).
    func refuseWhileRunning(_ threadId: String, _ what: String) throws
    /// `codex_unavailable` while the bridge shuts down.
    func refuseWhileShuttingDown() throws
    /// The devices with a session open here.
    var connectedDeviceIds: Set<String> { get }
    /// Gives open sessions the scopes read for their devices; returns how many changed.
    func applyScopes(_ current: [String: Scopes]) -> Int
    /// The thread of a pending approval (`not_found` when none).
    func pendingThread(ofApproval approvalId: String) throws -> String
    /// The thread of a pending question (`input_not_pending` when none).
    func pendingThread(ofQuestion requestId: String) throws -> String
    /// What the hub knows of a thread for the gate.
    func knownFacts(of threadId: String) -> PolicyGate.ThreadFacts
    /// Keeps a thread's cwd read from Codex (`.some(nil)`: read, none) and its policy read from the store, unless
    /// the hub learnt them meanwhile; → the facts now.
    func learnFacts(of threadId: String, cwd: String??, storedPolicy: TurnPolicy?) -> PolicyGate.ThreadFacts
    /// The Codex generation `threadId` must be resumed in (nil: loaded in the running one).
    func generationToLoad(_ threadId: String) -> Int?
    /// A thread resumed in generation `resumedIn`: loaded, unless Codex restarted meanwhile.
    func resumed(_ threadId: String, cwd: String?, in resumedIn: Int, policy turnPolicy: TurnPolicy)
    /// Remembers `turnPolicy` as the thread's; true when it changed (then keep it on disk: ``ThreadPolicyKeeper``).
    func keepPolicy(_ turnPolicy: TurnPolicy, of threadId: String) -> Bool
    /// A review turn started on `threadId`.
    func reviewStarted(_ threadId: String, turnId: String)
    /// What `readThread`'s answer takes from the hub: the thread's sub-agents, token usage, running turn, the seam.
    func snapshotFacts(of threadId: String) -> ThreadSnapshotFacts
    /// Takes an automatic review's denial for an override (nil: none, or another override took it).
    func takeDenial(_ reviewId: String, of threadId: String) -> AutoReviewDesk.Denial?
    /// Keeps a taken denial again (its override failed).
    func restoreDenial(_ reviewId: String, _ denial: AutoReviewDesk.Denial)
    /// Numbers, journals and sends a thread event.
    func publishEvent(_ type: String, data: JSONValue, threadId: String, turnId: String?, dataJSON: String?)
    /// Journals and sends a command's start (before the command runs).
    func commandStarted(_ started: CommandStarted)
    /// The last seq given out (a new thread's events after it are replayed to its maker).
    var lastSeq: Int64 { get }
    /// A thread this bridge started or forked is loaded here with `turnPolicy` (the caller keeps it on disk).
    func adopt(thread threadId: String, cwd: String, policy turnPolicy: TurnPolicy)
    /// Adds a subscription and captures its seam, holding the session's live frames when it replays (``Subscriber``).
    func beginSubscription(_ session: ClientSession, to threadId: String, afterSeq: Int64?, madeIt: Bool) throws -> SubscriptionStart
    /// Ends a hold a subscription's replay took; the last one queues the held frames.
    func endHold(_ id: UInt64)
    /// Subscribes a retrying session to the first attempt's new thread; false when the session closed.
    func subscribeRetrying(_ session: ClientSession, to threadId: String) -> Bool
    /// Drops `session`'s subscription to `threadId` (its client's memory: ``HubServices/remember(_:subscribedTo:_:)``).
    func unsubscribe(_ session: ClientSession, from threadId: String)
    /// The key of `session`'s client in the client memory (nil: closed, or not remembered).
    func clientKey(of session: ClientSession) -> String?
    /// Answers a pending approval (checked and resolved in one step); `approval_not_pending` when it is not.
    func resolveApproval(_ approvalId: String, _ decision: ApprovalDecision, by answerer: ApprovalAnswerer, deviceName: String?) throws
        -> Accepted
    /// Answers a pending question: checked, sent to Codex and announced in one step; `input_not_pending` when it is not.
    func answerInput(_ answer: AnswerInput, deviceId: String?, deviceName: String?) throws -> (threadId: String, action: InputAction)
    /// Queues a `mode: "queue"` message when the thread is busy, in the step that saw it busy; nil otherwise.
    func queueIfBusy(_ message: SendMessage, policy turnPolicy: TurnPolicy, session: ClientSession) throws -> Accepted?
    /// Takes a waiting message back (`not_found` when it no longer waits).
    func cancelQueued(_ queuedId: String, on threadId: String) throws
    /// Reorders a thread's waiting messages (`conflict` unless `ids` names each once).
    func reorderQueued(_ ids: [String], on threadId: String) throws
    /// Changes a waiting message's text (`not_found` when it no longer waits).
    func editQueued(_ queuedId: String, on threadId: String, text: String) throws
}

/// The hub's part of a `readThread` answer, read in one step.
struct ThreadSnapshotFacts: Sendable {
    var subAgents: [SubAgent]
    var tokenUsage: JSONValue?
    /// The running turn and the seq it started after, if one runs.
    var running: (turnId: String, since: Int64)?
    /// The last seq given out: the journal is read through it.
    var seam: Int64
}
