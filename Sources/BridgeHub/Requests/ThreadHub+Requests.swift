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
    public nonisolated var pipeline: RequestPipeline { RequestPipeline(services: services, hub: self) }

    /// What the handlers beside the hub work with.
    nonisolated var services: HubServices {
        HubServices(
            hub: self, codex: codex, policy: policy, gate: gate, git: git, logger: logger, storage: storage, auditor: auditor,
            answers: answers, lanes: lanes, deviceAdmin: deviceAdmin, goals: goals, plans: plans, commands: commands,
            commitMessages: commitMessages, threadPolicies: threadPolicies, attachments: attachments, push: push, previews: previews,
            models: models, voice: voice)
    }

    /// A retry answered with the first answer: a retried `startThread` subscribes the retrying session too, as
    /// the first attempt subscribed its own.
    func adopt(_ answer: ServerMessage, by session: ClientSession) async {
        let threadId: String
        switch answer {
        case .response(_, .threadStarted(let started)): threadId = started.threadId
        case .response(_, .threadForked(let forked)): threadId = forked.threadId
        default: return
        }
        guard sessions[session.id] != nil else { return }
        subscribe(session, to: threadId)
        await remember(session, subscribedTo: threadId, true)
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

    /// What the gate needs about a thread: its cwd (from memory, else `thread/read`, which works on threads no
    /// Codex child has loaded) and the policy this bridge runs it with.
    func threadFacts(_ threadId: String) async throws -> PolicyGate.ThreadFacts {
        if book[threadId]?.cwd == nil {
            let thread: JSONValue
            do {
                thread = try await codex.threadRead(threadId: threadId, includeTurns: false, timeout: policy.codexTimeout)
            } catch let error as CodexError where error.code == .rpc {
                throw HubError(.notFound, "no thread \(threadId.prefix(RequestLimits.maxThreadIdBytes))")
            }
            book.know(threadId, cwd: thread["cwd"]?.stringValue, generation: ThreadBook.notLoaded)
            plans.learn(thread: thread)
        }
        if book[threadId]?.policy == nil, let stored = await threadPolicies.policy(of: threadId) {
            book.setPolicy(stored, of: threadId)
        }
        return PolicyGate.ThreadFacts(cwd: book[threadId]?.cwd, remembered: book[threadId]?.policy)
    }

    /// `sendMessage {mode: "queue"}` while a turn runs or the queue is about to start one: queued, in the step
    /// that saw it busy (nil: not queued, the message steers or starts a turn).
    func queueIfBusy(_ message: SendMessage, policy turnPolicy: TurnPolicy, session: ClientSession) throws -> Accepted? {
        guard message.mode == .queue, isBusy(message.threadId) else { return nil }
        return try queueMessage(message, policy: turnPolicy, session: session)
    }

    /// After a Codex restart a thread must be resumed before it can be used again. The resume names the
    /// sandbox and approval policy explicitly: Codex would otherwise keep what it stored with the thread.
    func ensureLoaded(_ threadId: String, policy turnPolicy: TurnPolicy) async throws {
        guard !book.isLoaded(threadId, in: generation) else { return }
        // Unknown to this bridge (e.g. a CLI thread) or loaded by an earlier child: resume it.
        do {
            let result = try await codex.threadResume(
                threadId: threadId, sandbox: turnPolicy.sandbox, approvalPolicy: turnPolicy.approvalPolicy, timeout: policy.codexTimeout)
            let cwd = book[threadId]?.cwd ?? result["cwd"]?.stringValue ?? result["thread"]?["cwd"]?.stringValue
            book.loaded(threadId, cwd: cwd, generation: generation, policy: turnPolicy)
            if let model = result["model"]?.stringValue {
                plans.learn(threadId: threadId, model: model, effort: result["reasoningEffort"]?.stringValue)
            }
        } catch let error as CodexError where error.code == .rpc {
            throw HubError(.notFound, "no thread \(threadId): \(error.message)")
        }
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
