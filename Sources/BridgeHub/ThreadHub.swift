import BridgeGit
import BridgePreview
import BridgeProtocol
import BridgeStore
import ChildProcess
import CodexControl
import ConfinedFiles
import Foundation
import Logging
import ServiceLifecycle

/// The heart of the bridge: turns Codex notifications into numbered events for subscribed clients, holds
/// pending approvals until the first answer, and runs client requests against Codex.
///
/// A `Service`: its `run()` consumes the supervisor's event stream. Client requests arrive through
/// ``RequestHandling``.
public actor ThreadHub: RequestHandling, Service, NotificationAnswering, HubPort {
    /// What a request may choose, and the defaults (Policy/HubPolicy).
    public typealias Policy = HubPolicy

    let codex: any CodexPort
    let policy: Policy
    /// Every request passes it (roots, sandbox, approval policy).
    let gate: PolicyGate
    /// The git requests, worktrees and diffs (BridgeGit).
    let git: GitService
    let logger: Logger
    /// The journal and client memory; nil keeps everything in memory (no resume across connections).
    let storage: HubStorage
    /// Builds and writes every audit entry (the routes in front of the hub use it too).
    public nonisolated let auditor: Auditor
    /// The `admin` requests' work (Devices/).
    let deviceAdmin: DeviceAdmin
    let encoder = ServerMessage.defaultEncoder
    /// Work the hub starts in the background, owned by `run()` (ended when the hub stops).
    let background: BackgroundJobs
    /// The threads' goals, beside the hub (Desks/Goals/GoalDesk).
    let goals: GoalDesk
    /// Plan mode, plans and every turn's start, beside the hub (Desks/Plans/PlanService).
    let plans: PlanService
    /// Phones' `!commands` (Commands/): their state, and the ordered channel of what they journal.
    let commands: CommandService
    /// The bridge's own ephemeral Codex threads writing commit messages (Git/CommitMessageWriter).
    let commitMessages: CommitMessageWriter
    /// Voice sessions, beside the hub (Voice/VoiceService): the hub hands it Codex's realtime notifications.
    let voice: VoiceService

    /// Every open session and what the hub keeps for it; closing one removes its entry and its fan-out route.
    var sessions: [UInt64: SessionState] = [:]
    /// `lastSeq` and the policy for helloAcks built without the actor (``immediateOpening(for:principal:)``).
    let helloFacts: HelloFacts
    /// The Codex generation running now (0: none yet).
    var generation = 0
    /// Seqs, batches, subscriptions and replay holds: who gets which live frame (Events/EventCore).
    var events = EventCore(lastSeq: 0, maxHeldFrames: Replay.maxHeldFrames, maxHeldBytes: Replay.maxHeldBytes) {
        didSet { helloFacts.update(lastSeq: events.lastSeq) }
    }
    /// What the hub knows of each thread (Threads/ThreadBook).
    var book = ThreadBook()
    /// Approvals, questions, the queue, sub-agents, automatic reviews (Desks/).
    var desks = HubDesks()
    /// The queue's copy on disk (Desks/Queue/QueueKeeper).
    let queueKeeper: QueueKeeper
    /// Each thread's policy, kept for the next run (Threads/ThreadPolicyKeeper).
    let threadPolicies: ThreadPolicyKeeper
    /// On a shared app-server: the threads other Codex clients drive (Shared/SharedFollower).
    var sharedThreads = SharedThreadTracker()
    /// Attachments (Uploads/): the uploads a request names, and when they go.
    let attachments: Attachments
    /// Notifications (nil: off); see Push/.
    let push: PushCoordinator?
    /// What events mean for notices and the sleep inhibitor (Push/PushSignals).
    let pushSignals: PushSignals
    /// The dev-server previews (nil: this bridge serves none).
    let previews: Previews?
    /// The models Codex offers, cached (Requests/ModelCatalog).
    let models: ModelCatalog
    /// The last rate-limit snapshot relayed (`account/rateLimits/updated`).
    var rateLimits = RateLimitRelay()
    /// Each session's replays, one after another, run by the hub or a handler beside it (Events/SessionReplays).
    nonisolated let replays: SessionReplays
    /// Exactly-once requests: their stored answers and the first attempts under way (Requests/ExactlyOnce).
    let answers: ExactlyOnce
    /// The requests that change a thread's turns, one at a time per thread (Requests/ThreadLanes).
    nonisolated let lanes = ThreadLanes()
    /// The bridge is shutting down (``beginShutdown(grace:)``): running turns may finish, none starts.
    var shuttingDown = false
    /// Linked machines' approvals and questions still open (the fleet's relay port).
    var relayedPending = RelayedPending()
    /// How many notifications each linked machine may still send (the fleet's relay port).
    var relayNotices = RelayNotices()
    /// Each linked machine's highest seq journaled here (the fleet's relay port journals a message once).
    var relayCursors = RelayCursors()

    /// A hub over a journal: continues `seq` after the last journaled one and reports the turns and approvals
    /// that were open when the bridge stopped (`bridge/turnFailed` "bridge restarted", `approvalResolved` cancel).
    /// - Parameters:
    ///   - uploads: the store `attachments` name (nil: any attachment is `not_found`).
    ///   - push: the notification coordinator (nil: push off); `inhibitor`: the sleep inhibitor (nil: `--no-inhibit`).
    ///   - previews: serves `listPreviews` and `openPreview` (nil: `not_found`).
    ///   - gitEnvironment: where the git requests find git and gh, and the user environment they may use (nil: this
    ///     process's; tests: a home of their own).
    public init(
        codex: any CodexPort, policy: Policy, storage: HubStorage, logger: Logger, uploads: UploadStore? = nil,
        push: PushCoordinator? = nil, inhibitor: SleepInhibitor? = nil, previews: Previews? = nil,
        gitEnvironment: [String: String]? = nil
    ) throws {
        self.codex = codex
        self.attachments = Attachments(uploads: uploads)
        self.push = push
        self.pushSignals = PushSignals(push: push, inhibitor: inhibitor)
        self.previews = previews
        self.policy = policy
        self.logger = logger
        self.storage = storage
        let auditor = Auditor(log: storage.audit, logger: logger)
        self.auditor = auditor
        let background = BackgroundJobs()
        self.background = background
        self.answers = ExactlyOnce(memory: storage.memory, auditor: auditor, maxAge: storage.retention.answerMaxAge, jobs: background)
        self.commands = CommandService(codex: codex, codexTimeout: policy.codexTimeout, jobs: background, logger: logger)
        self.commitMessages = CommitMessageWriter(codex: codex, codexTimeout: policy.codexTimeout, jobs: background)
        self.voice = VoiceService(codex: codex, codexTimeout: policy.codexTimeout, jobs: background, logger: logger)
        self.models = ModelCatalog(codex: codex, timeout: policy.codexTimeout)
        self.goals = GoalDesk(lookup: GoalLookup(codex: codex))
        self.plans = PlanService(store: storage.plans, codex: codex, timeout: policy.codexTimeout, logger: logger)
        self.queueKeeper = QueueKeeper(store: storage.queue, logger: logger)
        self.replays = SessionReplays(journal: storage.journal)
        self.threadPolicies = ThreadPolicyKeeper(store: storage.threadPolicies, logger: logger)
        self.deviceAdmin = DeviceAdmin(devices: storage.devices, audit: storage.audit)
        let gate = Self.gate(for: policy)
        self.gate = gate
        self.git = GitService(roots: policy.roots, environment: gitEnvironment ?? ProcessInfo.processInfo.environment)
        let held = try storage.queue.all()
        let recovery = try JournalRecovery.read(storage.journal, keptQueued: held, logger: logger)
        self.helloFacts = HelloFacts(lastSeq: recovery.lastSeq, policy: gate.clientPolicy)
        self.events = EventCore(lastSeq: recovery.lastSeq, maxHeldFrames: Replay.maxHeldFrames, maxHeldBytes: Replay.maxHeldBytes)
        // Loaded in no Codex generation: the first use resumes them (thread/resume).
        self.book = ThreadBook(recovered: recovery.threads)
        // Announced again by `recover`, with the seqs it gave them.
        desks.queue.restore(recovery.requeued.map(MessageQueue.Entry.init(stored:)))
        desks.queue.changes = recovery.queueChanges
    }

    public nonisolated var description: String { "ThreadHub" }

    static func gate(for policy: Policy) -> PolicyGate {
        PolicyGate(
            roots: policy.roots, allowedSandboxes: policy.allowedSandboxes, allowedApprovalPolicies: policy.allowedApprovalPolicies,
            defaults: TurnPolicy(sandbox: policy.defaultSandbox, approvalPolicy: policy.defaultApprovalPolicy))
    }

    /// Most Codex events handled in one batch (one journal transaction).
    static let maxBatch = 512

    /// Consumes Codex's events until the supervisor ends its stream (on shutdown); the background work runs
    /// beside it and is ended with it.
    public func run() async throws {
        background.start { await self.publishCommandFrames() }
        await background.run { await self.consumeEvents() }
    }

    private func consumeEvents() async {
        for await event in codex.events {
            // Group commit: every event already waiting is processed in this same actor step and journaled in
            // one transaction before any of them is delivered.
            events.beginBatch()
            process(event)
            let more = codex.events.poll(limit: Self.maxBatch - 1)
            for next in more {
                process(next)
            }
            flushBatch()
            // Commands' endings answered after these events may be journaled now (CommandService).
            commands.eventsRead(adding: 1 + more.count)
            await paceDelivery()
        }
        // The supervisor ends its stream when it shuts down, which happens before the hub is told to (services
        // stop in reverse order). Returning now would count as finishing unexpectedly: wait for our turn.
        try? await gracefulShutdown()
    }

    // MARK: Codex → clients

    func process(_ event: CodexEvent) {
        switch event {
        case .started(let generation):
            let previousGeneration = self.generation
            self.generation = generation
            if codex.isShared { SharedFollower.connected(previousGeneration: previousGeneration, on: self) }
            logger.info("Codex is running", metadata: ["bridge.codex.generation": "\(generation)"])
            if generation > 1 { BridgeMetrics.shared.codexRestarted() }
            resumeRecoveredThreads()
            startWaitingMessages()
        case .stopped(let generation, let reason):
            codexStopped(generation: generation, reason: reason)
        case .inbound(.notification(let note)):
            notification(note)
        case .inbound(.relayed(let note)):
            relayed(note)
        case .inbound(.serverRequest(let id, let method, let params)):
            serverRequest(id: id, method: method, params: params)
        case .inbound(.exited):
            break
        }
    }

    /// A Codex notification, as its kind's ``EventDescriptor`` says: journaled, live or internal.
    func notification(_ note: CodexNotification) {
        let params = note.params
        switch EventDescriptor.of(note.kind).disposition {
        case .internal:
            // Commands' output names no thread (CommandService); the other internal kinds concern no phone.
            // Codex's realtime kinds go to the voice service (Voice/: what it makes of them, bridge/voice and
            // bridge/voiceTranscript, is published in this step); an account change makes voice's checks run again.
            if note.kind == .commandExecOutputDelta {
                commands.outputDelta(params)
            } else {
                publish(voice.notification(note.kind, params: params))
            }
            return
        case .live:
            // The model's voice: to the phone's live stream (Voice/), never numbered, journaled or replayed.
            publish(voice.notification(note.kind, params: params))
            return
        case .journaled:
            break
        }
        let method = note.method
        let paramsJSON = note.paramsJSON
        // The account's rate limits name no thread: to `*` subscribers, when they changed (RateLimitRelay).
        if note.kind == .accountRateLimitsUpdated {
            guard rateLimits.admit(params) else { return }
            return publishEvent(method, data: params, threadId: RateLimitRelay.threadId, dataJSON: paramsJSON)
        }
        guard let threadId = params["threadId"]?.stringValue ?? params["thread"]?["id"]?.stringValue else { return }
        if commitMessages.take(note, threadId: threadId) { return }  // CommitMessageWriter
        if codex.isShared, !SharedFollower.admits(note, threadId: threadId, on: self) { return }
        let kind = EventKind(note.kind)
        // A review runs as a child turn whose `turn/started` names its root (the turn `review/start` answered,
        // which its items and `turn/completed` carry): the root is the thread's turn (not so for a sub-agent's).
        let turnId = desks.subAgents.eventTurnId(params, threadId: threadId) { book.owner(ofTurn: $0, besides: threadId) }
        book.know(threadId, cwd: params["thread"]?["cwd"]?.stringValue, generation: generation)
        book.observe(
            kind, threadId: threadId, turnId: turnId, diff: params["diff"]?.stringValue, tokenUsage: params["tokenUsage"],
            since: events.lastSeq)
        // Codex's own text of the params goes out as `data` (no second encoding).
        publishEvent(method, data: params, threadId: threadId, turnId: turnId, dataJSON: paramsJSON)
        pushSignals.observe(kind, params: params, threadId: threadId, running: book.runningCount)
        observeDesks(kind, params: params, threadId: threadId)
        switch note.kind {
        case .serverRequestResolved: codexResolvedRequest(params)
        case .turnCompleted:
            cancelInputs { $0.request.threadId == threadId && ($0.request.turnId == turnId || turnId == nil) }
            attachments.turnEnded(threadId)
            turnEnded(threadId, turnId: turnId)
        default: break
        }
    }

    private func serverRequest(id: CodexRequestID, method: String, params: JSONValue) {
        if codex.isShared, !SharedFollower.relays(method: method, threadId: params["threadId"]?.stringValue, on: self) {
            // Another client of the shared app-server (the terminal) answers it; an error from us would win.
            logger.debug("Leaving a Codex request to the other clients", metadata: ["bridge.codex.method": "\(method)"])
            return
        }
        if let threadId = params["threadId"]?.stringValue, commitMessages.isOwn(threadId) {
            return refuse(id: id, method: method)  // the bridge's own read-only helper thread asks nothing of anyone
        }
        if relayInput(id: id, method: method, params: params) { return }
        guard let type = ApprovalMapping.type(of: method),
            let threadId = params["threadId"]?.stringValue ?? params["conversationId"]?.stringValue
        else {
            refuse(id: id, method: method)
            return
        }
        let approvalId = desks.approvals.nextId(generation: generation)
        publish(threadId: threadId) { seq in
            let request = ApprovalMapping.approval(
                seq: seq, approvalId: approvalId, threadId: threadId, method: method, type: type, params: params)
            self.desks.approvals.requested(request, codexId: id, method: method, params: params)
            return .approvalRequest(request)
        }
        pushSignals.approvalRequested(desks.approvals.request(approvalId))
        logger.info(
            "Approval requested",
            metadata: ["bridge.thread.id": "\(threadId)", "bridge.approval.id": "\(approvalId)", "bridge.approval.type": "\(type)"])
    }

    /// Journals and sends what commands journal after their start, in their order (CommandService's channel).
    private func publishCommandFrames() async {
        for await frame in commands.frames {
            publish(threadId: frame.threadId) { frame.message(seq: $0) }
        }
    }

    // MARK: Lifecycle port (TurnDrain, serve's startup QR)

    /// Whether a Codex app-server has started (serve's startup QR waits for it).
    public var isCodexRunning: Bool { generation > 0 }

    /// How many threads run a turn now.
    public var runningTurnCount: Int { book.runningCount }

    /// The bridge is shutting down (``TurnDrain``): new turns are refused from now on, and each running turn's
    /// subscribers are told how long it has (`bridge/shuttingDown`). Returns how many turns run.
    public func beginShutdown(grace: Duration) -> Int {
        shuttingDown = true
        let running = book.runningTurns
        guard grace > .zero else { return running.count }
        for (threadId, turnId) in running {
            let data = BridgeTurnEvent.shuttingDownData(threadId: threadId, turnId: turnId, grace: grace)
            publishEvent(BridgeTurnEvent.shuttingDown, data: data, threadId: threadId, turnId: turnId)
        }
        return running.count
    }

    /// A request that would start a turn while the bridge shuts down: `codex_unavailable` (nothing was done; a
    /// retry after the restart acts).
    func refuseWhileShuttingDown() throws {
        if shuttingDown { throw HubError(.codexUnavailable, "the workstation is shutting down; try again when it is back") }
    }

    private func codexStopped(generation: Int, reason: String) {
        logger.warning("Codex stopped", metadata: ["bridge.codex.generation": "\(generation)", "bridge.codex.reason": "\(reason)"])
        // Stopped by this bridge's own shutdown (after the drain's grace): say so, not how codex exited.
        let reason = shuttingDown ? BridgeTurnEvent.stoppedReason : reason
        publish(voice.codexStopped())
        for (threadId, turnId) in book.stopAll() {
            let data = BridgeTurnEvent.failedData(threadId: threadId, turnId: turnId, reason: reason)
            publishEvent(BridgeTurnEvent.failed, data: data, threadId: threadId, turnId: turnId)
            pushSignals.observe(.turnFailed, params: data, threadId: threadId, running: book.runningCount)
            observeDesks(.turnFailed, params: data, threadId: threadId)
        }
        for request in desks.approvals.cancelAll(generation: generation) {
            publish(threadId: request.threadId) { seq in
                .approvalResolved(ApprovalResolved(seq: seq, approvalId: request.approvalId, threadId: request.threadId, decision: .cancel))
            }
            pushSignals.approvalResolved(request.approvalId, decision: .cancel, deviceId: nil)
        }
        cancelInputs { $0.codexId.generation == generation }
    }

    /// Whether `session` receives `threadId`'s messages now (by name or through `*`).
    public func covers(_ session: ClientSession, _ threadId: String) -> Bool { events.fanOut.covers(session.id, threadId) }

    // MARK: The port the parts beside the hub use (request collections, Threads/, Desks/)

    /// The turn running on `threadId`, if any.
    func runningTurn(of threadId: String) -> String? { book.runningTurn(of: threadId) }

    /// Whether a turn runs on `threadId` or its queue is about to start one (a new turn would race it).
    func isBusy(_ threadId: String) -> Bool { book.runningTurn(of: threadId) != nil || desks.queue.isBusy(threadId) }

    /// Codex's thread housekeeping requests, with this bridge's timeout.
    nonisolated var housekeeping: ThreadHousekeeping { ThreadHousekeeping(codex: codex, timeout: policy.codexTimeout) }

    /// A thread this bridge started or forked is loaded here with `turnPolicy` (the caller keeps the policy on disk:
    /// ``ThreadPolicyKeeper``).
    func adopt(thread threadId: String, cwd: String, policy turnPolicy: TurnPolicy) {
        book.loaded(threadId, cwd: cwd, generation: generation, policy: turnPolicy)
    }

    /// A paired device's name (for an answer's `deviceName`); nil for the shared secret or when unknown.
    public nonisolated func deviceName(_ deviceId: String?) async -> String? {
        guard let deviceId else { return nil }
        return try? await storage.devices.device(id: deviceId)?.name
    }

    /// `GET /files`: the file a client may download (Files/FileDownloads).
    package func downloadableFile(threadId: String, path: String) async throws -> ConfinedFile {
        try await FileDownloads.open(path, threadId: threadId, on: self)
    }

    /// The devices with a session open here.
    var connectedDeviceIds: Set<String> { Set(sessions.values.compactMap { $0.session.principal.deviceId }) }

    /// Pending approvals and threads with a running turn, for `/metrics`.
    package func metricsSnapshot() -> (approvalsPending: Int, threadsRunning: Int) {
        (desks.approvals.count, book.runningCount)
    }

    /// The last seq given out.
    public var lastSeq: Int64 { events.lastSeq }

    /// Whether this bridge runs `threadId` itself (it has seen it in this run or the journal's).
    public func runsThread(_ threadId: String) -> Bool { book.knows(threadId) }

    /// Numbers a message, journals it, then delivers it to every subscriber of `threadId` (and of `*`),
    /// encoding it once. Journal and delivery happen in one actor step: a subscription that begins at
    /// `lastSeq` sees every later message live and every earlier one in the journal.
    func publish(threadId: String, eventDataJSON: String? = nil, _ make: (Int64) -> ServerMessage) {
        let message = make(events.nextSeq())
        guard let text = try? message.encodedText(encoder: encoder, eventDataJSON: eventDataJSON) else { return }
        BridgeMetrics.shared.eventRelayed()
        if let now = events.publish(JournalEntry(message, text: text, threadId: threadId)) { write(now) }
    }

    /// Publishes a thread event: `type` with `data` (sent as `dataJSON` when that is its text already).
    func publishEvent(_ type: String, data: JSONValue, threadId: String, turnId: String? = nil, dataJSON: String? = nil) {
        publish(threadId: threadId, eventDataJSON: dataJSON) { seq in
            .event(ThreadEvent(seq: seq, threadId: threadId, turnId: turnId, type: type, data: data))
        }
    }

    /// Publishes what the voice service made of what the hub handed it, in that step.
    private func publish(_ voiceEvents: [VoiceService.Event]) {
        for event in voiceEvents { publishEvent(event.type, data: event.data, threadId: event.threadId) }
    }

    /// Journals the messages of the current batch in one transaction, then delivers them in order. Runs in the
    /// same actor step as their `publish`, so the resume seam sees the same picture as without batching.
    func flushBatch() {
        if let pending = events.endBatch() { write(pending) }
    }

    /// Writes what the event core made ready: the journal first (one transaction), then the deliveries.
    func write(_ written: EventCore.Written) {
        if !written.entries.isEmpty {
            do {
                try storage.journal.append(contentsOf: written.entries)
            } catch {
                // Still delivered live: a client that is connected loses nothing; a resume after this seq may miss it.
                logger.error(
                    "Cannot write to the journal", metadata: ["bridge.seq": "\(written.entries.first?.seq ?? 0)", "error": "\(error)"])
            }
        }
        apply(written.actions)
    }

    // MARK: Sessions

    public func sessionOpened(_ session: ClientSession) async -> SessionOpening {
        let opening = await open(session)
        push?.signal(.sessionOpened(session, owner: sessions[session.id]?.clientKey))
        return opening
    }

    public func sessionReady(_ session: ClientSession) async {
        await replayPending(session)
    }

    public nonisolated func immediateOpening(for hello: Hello, principal: Principal) -> SessionOpening? {
        // Restoring subscriptions or resuming needs the hub's seam (and the database): not from a snapshot.
        guard hello.resume == nil, ClientMemory.key(deviceId: principal.deviceId, clientId: hello.clientId) == nil else {
            return nil
        }
        return SessionOpening(lastSeq: helloFacts.lastSeq, policy: helloFacts.policy, previewPort: previews?.port)
    }

    public func sessionRegistered(_ session: ClientSession) async {
        // Subscribed to nothing: opening it restores nothing and holds nothing past `replayPending`.
        _ = await sessionOpened(session)
        await replayPending(session)
    }

    /// Straight to the store: an ack changes nothing the hub holds.
    public nonisolated func acknowledged(_ seq: Int64, session: ClientSession) async {
        guard let deviceId = session.principal.deviceId else { return }
        do {
            try await storage.devices.recordAck(deviceId: deviceId, seq: seq)
        } catch {
            session.logger.warning("Cannot record an ack", metadata: ["error": "\(error)"])
        }
    }

    public func sessionClosed(_ session: ClientSession) async {
        push?.signal(.sessionClosed(session.id))
        sessions[session.id] = nil
        events.fanOut.remove(session.id)
        publish(voice.connectionClosed(session.id))
    }

    /// Reaching the actor at all is the answer: a hub stuck in a call never gets here.
    public func isResponsive() async -> Bool { true }

    func subscribe(_ session: ClientSession, to threadId: String, sendPendingApprovals: Bool = true) {
        let newlyCovered = events.fanOut.subscribe(session.id, to: threadId)
        // Approvals, questions and queued messages nobody answered yet reach a client that subscribes later.
        guard newlyCovered, sendPendingApprovals else { return }
        for request in desks.approvals.inOrder where threadId == "*" || request.threadId == threadId {
            session.send(.approvalRequest(request))
        }
        sendPendingExtras(to: session, on: threadId)
    }

    func unsubscribe(_ session: ClientSession, from threadId: String) {
        events.fanOut.unsubscribe(session.id, from: threadId)
    }
}
