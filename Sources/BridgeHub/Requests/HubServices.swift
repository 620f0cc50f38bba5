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
/// (a check and its act together). A handler awaits its I/O between steps and checks again in the step that
/// acts. Five still await inside (not yet split): ``threadFacts(_:)`` and ``ensureLoaded(_:policy:)`` ask Codex
/// once and remember the answer, ``refreshScopes()`` reads the store, ``adopt(thread:cwd:policy:)`` writes the
/// policy, ``subscribe(_:toNew:since:)`` replays the journal. Of these only ``ensureLoaded(_:policy:)`` checks
/// before its await and acts after: two at once may both resume the thread (harmless, as on the actor before).
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
    /// Tells open sessions their devices' scopes as stored now; returns how many changed.
    func refreshScopes() async -> Int
    /// The thread of a pending approval (`not_found` when none).
    func pendingThread(ofApproval approvalId: String) throws -> String
    /// The thread of a pending question (`input_not_pending` when none).
    func pendingThread(ofQuestion requestId: String) throws -> String
    /// What the gate needs about a thread (read from Codex once, then remembered).
    func threadFacts(_ threadId: String) async throws -> PolicyGate.ThreadFacts
    /// Resumes `threadId` in the running Codex with `turnPolicy` unless it is loaded there.
    func ensureLoaded(_ threadId: String, policy turnPolicy: TurnPolicy) async throws
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
    /// The last seq given out (a new thread's events after it are replayed to its maker).
    var lastSeq: Int64 { get }
    /// A thread this bridge started or forked is loaded here with `turnPolicy`, remembered across restarts.
    func adopt(thread threadId: String, cwd: String, policy turnPolicy: TurnPolicy) async
    /// Subscribes `session` to a thread it just made, replaying its events after `before`.
    func subscribe(_ session: ClientSession, toNew threadId: String, since before: Int64) async
    /// Drops `session`'s subscription to `threadId` (its client's memory: ``remember(_:subscribedTo:_:)``).
    func unsubscribe(_ session: ClientSession, from threadId: String)
    /// Keeps a session's subscription in its client's memory (a reconnect restores it).
    func remember(_ session: ClientSession, subscribedTo threadId: String, _ subscribed: Bool) async
    /// Answers a pending approval (checked and resolved in one step); `approval_not_pending` when it is not.
    func resolveApproval(_ approvalId: String, _ decision: ApprovalDecision, by answerer: ApprovalAnswerer, deviceName: String?) throws
        -> Accepted
    /// Queues a `mode: "queue"` message when the thread is busy, in the step that saw it busy; nil otherwise.
    func queueIfBusy(_ message: SendMessage, policy turnPolicy: TurnPolicy, session: ClientSession) throws -> Accepted?
    /// A retried request's first answer, taken by the retrying session (a new thread's subscription).
    func adopt(_ answer: ServerMessage, by session: ClientSession) async
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
