import BridgeProtocol
import BridgeStore
import Logging

/// Where a request goes when this bridge drives linked machines (BridgeFleet's `FleetRouter`): the pipeline's
/// machine step, after the scope, exactly-once and audit steps, which a linked machine's requests pass here too.
public protocol MachineStep: Sendable {
    /// The answer of the machine `request` is for (or of the fleet layer, for ``MachineRoute/fleet`` kinds), or
    /// nil when this bridge answers it. `here` answers it on this bridge (lane, gate, handler): a step that
    /// merges every machine's answers, or falls back to this bridge's, calls it.
    func answer(
        _ request: BridgeRequest, id: String, session: ClientSession, here: @escaping @Sendable () async -> ServerMessage
    ) async -> ServerMessage?
}

/// Every request's one way to its answer (issue 45 item 1), in the order its ``RequestDescriptor`` declares:
///
///     scope ─▶ exactly-once ─▶ audit ─▶ machine ─▶ lane ─▶ gate ─▶ handler
///
/// It runs in the request's own task, not on the hub actor: the handlers reach the hub's state through
/// ``HubPort``, one actor step at a time, and everything else through the services beside it (``HubServices``).
public struct RequestPipeline: Sendable {
    let services: HubServices

    /// Every request kind this bridge answers itself, by the part that owns it.
    static let routes = RequestRoutes([
        ThreadRequests(), ThreadReads(), ThreadListing(), HousekeepingRequests(), ForkRequests(), ReviewRequests(), GoalRequests(),
        AutoReviewRequests(), QueueRequests(), QuestionRequests(), GitRequests(), CommandRequests(), DeviceRequests(), PushRequests(),
        PreviewRequests(), VoiceRequests(),
    ])

    /// Answers one client request with exactly one message; a retried request is answered once (``ExactlyOnce``).
    /// The scope comes first: a request the session's scopes do not cover is refused `forbidden` (naming the
    /// scope) before anything happens. Refused and state-changing requests are audited (a first attempt's entry
    /// is written with its stored answer, after the answer went out). `machines`: the fleet's step (nil: every
    /// request is this bridge's).
    public func handle(
        _ request: BridgeRequest, id: String, session: ClientSession, machines: (any MachineStep)? = nil
    ) async -> ServerMessage {
        if let refusal = ScopeGate.check(request, session: session) {
            let answer = ServerMessage.error(refusal.errorMessage(id: id))
            session.logger.notice(
                "Request refused: missing scope", metadata: ["bridge.request.kind": "\(request.kind)", "bridge.scope": "\(refusal.scope)"])
            await services.auditor.record(request, answer: answer, session: session)
            return answer
        }
        let perform: @Sendable () async -> ServerMessage = { await route(request, id: id, session: session, machines: machines) }
        let outcome: ExactlyOnce.Outcome
        if request.descriptor.exactlyOnce,
            let key = ClientMemory.key(deviceId: session.principal.deviceId, clientId: session.hello.clientId)
        {
            outcome = await services.answers.answer(
                request, id: id, key: key, session: session, perform: perform,
                adopt: { [services] in await Subscriber(services: services).adopt($0, by: session) })
        } else {
            outcome = ExactlyOnce.Outcome(answer: await perform())
        }
        if request.descriptor.audited, !outcome.audited { await services.auditor.record(request, answer: outcome.answer, session: session) }
        return outcome.answer
    }

    /// The machine step: a linked machine's answer, else this bridge's.
    private func route(_ request: BridgeRequest, id: String, session: ClientSession, machines: (any MachineStep)?) async -> ServerMessage {
        let here: @Sendable () async -> ServerMessage = { await answerHere(request, id: id, session: session) }
        if let machines, let answer = await machines.answer(request, id: id, session: session, here: here) { return answer }
        return await here()
    }

    /// Runs `request` on this bridge and turns its failure into an `error` frame.
    func answerHere(_ request: BridgeRequest, id: String, session: ClientSession) async -> ServerMessage {
        do {
            return .response(id: id, try await run(request, session: session))
        } catch {
            if let failure = RequestFailure.message(id: id, for: error) { return .error(failure) }
            session.logger.error("Request failed", metadata: ["bridge.request.kind": "\(request.kind)", "error": "\(error)"])
            return .error(ErrorMessage(id: id, code: .internal, message: "internal error"))
        }
    }

    /// Lane, gate, handler.
    private func run(_ request: BridgeRequest, session: ClientSession) async throws -> BridgeResponse {
        guard let handler = Self.routes.handler(for: request.requestKind) else {
            // The fleet's request layer (BridgeFleet's FleetRouter) answers the machines' kinds.
            throw HubError(.unknownKind, "this bridge does not answer '\(request.kind)' (it has no fleet layer)")
        }
        let lane = ThreadLanes.lane(of: request)
        if let lane { await services.lanes.enter(lane) }
        defer { if let lane { services.lanes.leave(lane) } }
        // The gate: every request that names a thread (or an approval's or a question's thread) is checked
        // against the roots, and every turn runs with a policy this bridge allows.
        let verdict = services.gate.decide(request, thread: try await gateFacts(request))
        guard case .allowed(let cwd, let turnPolicy) = verdict else {
            if case .refused(let code, let message) = verdict { throw HubError(code, message) }
            throw HubError(.internal, "no verdict")
        }
        let context = RequestContext(
            session: session, cwd: cwd, policy: turnPolicy ?? services.gate.defaults, services: services)
        let response = try await handler(request.payload, context)
        // The answer kind each kind declares (``RequestDescriptor/answer``): a handler that strays is a bug the tests catch.
        assert(response.responseKind == request.descriptor.answer, "\(request.kind) answered \(response.kind)")
        return response
    }

    /// What the gate needs to judge `request`: the facts of the thread its ``GateRule`` points at.
    private func gateFacts(_ request: BridgeRequest) async throws -> PolicyGate.ThreadFacts? {
        if let threadId = request.threadId { try RequestLimits.checkThreadId(threadId) }
        let port = services.hub
        switch request.descriptor.gate {
        case .none, .newThread, .directory:
            return nil
        case .approval:
            let threadId = try await port.pendingThread(ofApproval: request.payload(as: Approve.self)?.approvalId ?? "")
            return try await services.threadFacts(threadId)
        case .question:
            let threadId = try await port.pendingThread(ofQuestion: request.payload(as: AnswerInput.self)?.requestId ?? "")
            return try await services.threadFacts(threadId)
        case .thread, .file, .settings:
            guard let threadId = request.threadId else { return nil }
            return try await services.threadFacts(threadId)
        }
    }
}
