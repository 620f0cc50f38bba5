import BridgeGit
import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Logging

extension ThreadHub {
    /// Answers one client request through the pipeline beside the hub (``RequestPipeline``), not on the actor.
    public nonisolated func handle(_ request: BridgeRequest, id: String, session: ClientSession) async -> ServerMessage {
        await pipeline.handle(request, id: id, session: session)
    }

    /// The one way to a request's answer; the fleet's router runs it with its machine step.
    public nonisolated var pipeline: RequestPipeline { RequestPipeline(services: services) }

    /// What the handlers beside the hub work with.
    nonisolated var services: HubServices {
        HubServices(
            hub: self, codex: codex, policy: policy, gate: gate, git: git, logger: logger, storage: storage, auditor: auditor,
            answers: answers, lanes: lanes, replays: replays, deviceAdmin: deviceAdmin, goals: goals, plans: plans, commands: commands,
            commitMessages: commitMessages, threadPolicies: threadPolicies, attachments: attachments, push: push, previews: previews,
            models: models, voice: voice)
    }

    // MARK: The port's steps not declared elsewhere (``HubPort``)

    func lastDiff(of threadId: String) -> String? { book[threadId]?.lastDiff }

    func refuseWhileRunning(_ threadId: String, _ what: String) throws { try book.refuseWhileRunning(threadId, what) }

    func pendingThread(ofApproval approvalId: String) throws -> String { try desks.approvals.pendingThread(of: approvalId) }

    func pendingThread(ofQuestion requestId: String) throws -> String { try desks.questions.pendingThread(of: requestId) }

    func takeDenial(_ reviewId: String, of threadId: String) -> AutoReviewDesk.Denial? { desks.autoReviews.take(reviewId, of: threadId) }

    func restoreDenial(_ reviewId: String, _ denial: AutoReviewDesk.Denial) { desks.autoReviews.restore(reviewId, denial) }

    /// Remembers `turnPolicy` as `threadId`'s in one step; true when it changed (the caller keeps it on disk).
    func keepPolicy(_ turnPolicy: TurnPolicy, of threadId: String) -> Bool {
        guard book[threadId]?.policy != turnPolicy else { return false }
        book.setPolicy(turnPolicy, of: threadId)
        return true
    }

    /// A review turn started on `threadId` (its events name the thread's turn).
    func reviewStarted(_ threadId: String, turnId: String) { desks.subAgents.reviewStarted(threadId, turnId: turnId) }

    func checkSubscriptionCount(_ session: ClientSession) throws {
        guard events.fanOut.subscriptionCount(session.id) < RequestLimits.maxSubscriptionsPerSession else {
            throw HubError(
                .badRequest,
                "too many subscriptions (at most \(RequestLimits.maxSubscriptionsPerSession) threads; subscribe to \"*\" instead)")
        }
    }

    /// What the hub knows of a thread for the gate (``HubServices/threadFacts(_:)`` fills in what it lacks).
    func knownFacts(of threadId: String) -> PolicyGate.ThreadFacts {
        PolicyGate.ThreadFacts(cwd: book[threadId]?.cwd, remembered: book[threadId]?.policy)
    }

    /// Keeps what was read beside the hub (the thread's cwd from Codex, its policy from the store) unless the hub
    /// learnt it meanwhile; → the facts as they are now.
    func learnFacts(of threadId: String, cwd: String??, storedPolicy: TurnPolicy?) -> PolicyGate.ThreadFacts {
        if book[threadId]?.cwd == nil, let cwd { book.know(threadId, cwd: cwd, generation: ThreadBook.notLoaded) }
        if book[threadId]?.policy == nil, let storedPolicy { book.setPolicy(storedPolicy, of: threadId) }
        return knownFacts(of: threadId)
    }

    /// The Codex generation `threadId` must be resumed in (nil: it is loaded in the running one).
    func generationToLoad(_ threadId: String) -> Int? { book.isLoaded(threadId, in: generation) ? nil : generation }

    /// `threadId` was resumed in `resumedIn` with `turnPolicy`: loaded, unless Codex restarted meanwhile (then the next
    /// use resumes it in the new child).
    func resumed(_ threadId: String, cwd: String?, in resumedIn: Int, policy turnPolicy: TurnPolicy) {
        guard resumedIn == generation else { return }
        book.loaded(threadId, cwd: book[threadId]?.cwd ?? cwd, generation: resumedIn, policy: turnPolicy)
    }

    /// The hub's own jobs (a queued message's start, a recovered thread, voice) take the same steps as a handler.
    nonisolated func threadFacts(_ threadId: String) async throws -> PolicyGate.ThreadFacts { try await services.threadFacts(threadId) }

    /// The hub's own jobs resume a thread by the same steps as a handler (``HubServices/ensureLoaded(_:policy:)``).
    nonisolated func ensureLoaded(_ threadId: String, policy turnPolicy: TurnPolicy) async throws {
        try await services.ensureLoaded(threadId, policy: turnPolicy)
    }

    /// A command's start (``CommandRequests``), journaled before the command runs.
    func commandStarted(_ started: CommandStarted) {
        publish(threadId: started.threadId) { seq in
            var numbered = started
            numbered.seq = seq
            return .commandStarted(numbered)
        }
    }

    /// `sendMessage {mode: "queue"}` while a turn runs or the queue is about to start one: queued, in the step
    /// that saw it busy (nil: not queued, the message steers or starts a turn).
    func queueIfBusy(_ message: SendMessage, policy turnPolicy: TurnPolicy, session: ClientSession) throws -> Accepted? {
        guard message.mode == .queue, isBusy(message.threadId) else { return nil }
        return try queueMessage(message, policy: turnPolicy, session: session)
    }
}

extension ThreadHub {
    /// What `readThread`'s answer takes from the hub, read in one step (so its seam matches its running turn).
    func snapshotFacts(of threadId: String) -> ThreadSnapshotFacts {
        ThreadSnapshotFacts(
            subAgents: desks.subAgents.shown(under: threadId), tokenUsage: book[threadId]?.tokenUsage,
            running: book.runningTurnSince(of: threadId), seam: events.lastSeq)
    }
}
