import BridgeProtocol

/// What a new session is told in its `helloAck` beyond the handshake itself.
public struct SessionOpening: Sendable {
    public var lastSeq: Int64?
    public var resume: ResumeStatus?
    public var restoredSubscriptions: [String]?
    /// What the client may choose (roots, sandboxes, approval policies).
    public var policy: ClientPolicy?
    /// For a fleet session (`hello.fleet`): every machine and its state, this bridge first.
    public var machines: [MachineStatus]?
    /// Where this bridge's previews open, once its preview port listens.
    public var previewPort: Int?
    public init(
        lastSeq: Int64? = nil, resume: ResumeStatus? = nil, restoredSubscriptions: [String]? = nil, policy: ClientPolicy? = nil,
        machines: [MachineStatus]? = nil, previewPort: Int? = nil
    ) {
        self.previewPort = previewPort
        self.machines = machines
        self.lastSeq = lastSeq
        self.resume = resume
        self.restoredSubscriptions = restoredSubscriptions
        self.policy = policy
    }
}

/// The layer behind the connections: Codex threads, subscriptions, the journal.
public protocol RequestHandling: Sendable {
    /// A session completed its handshake. Returns facts for its `helloAck`; `replay` is then called so
    /// that the ack precedes any replayed event.
    func sessionOpened(_ session: ClientSession) async -> SessionOpening
    /// Called right after the `helloAck` was queued: replay what the session missed and start live delivery.
    func sessionReady(_ session: ClientSession) async
    /// The facts for the `helloAck` of a session that restores nothing (no client key, no `resume`), as of now
    /// and without waiting for the layer: the connection sends the ack at once and registers the session with
    /// ``sessionRegistered(_:)`` afterwards. nil: the session needs ``sessionOpened(_:)`` before its ack.
    func immediateOpening(for hello: Hello, principal: Principal) -> SessionOpening?
    /// Registers a session whose `helloAck` was already sent with ``immediateOpening(for:principal:)``'s facts.
    func sessionRegistered(_ session: ClientSession) async
    /// Answers one request with exactly one message carrying `id` (its result kind or `error`).
    func handle(_ request: BridgeRequest, id: String, session: ClientSession) async -> ServerMessage
    /// The client acknowledged events up to `seq`.
    func acknowledged(_ seq: Int64, session: ClientSession) async
    /// The session ended.
    func sessionClosed(_ session: ClientSession) async
    /// Answers at once when the layer is not stuck (`/healthz` asks it, with a deadline).
    func isResponsive() async -> Bool
}

extension RequestHandling {
    /// By default every session is opened before its ack.
    public func immediateOpening(for hello: Hello, principal: Principal) -> SessionOpening? { nil }

    /// By default a registration is an opening and its ready step.
    public func sessionRegistered(_ session: ClientSession) async {
        _ = await sessionOpened(session)
        await sessionReady(session)
    }
}

/// Answers every request with `codex_unavailable`; used when no Codex control is configured.
public struct UnavailableRequestHandler: RequestHandling {
    public init() {}
    public func sessionOpened(_ session: ClientSession) async -> SessionOpening { SessionOpening() }
    public func sessionReady(_ session: ClientSession) async {}
    public func immediateOpening(for hello: Hello, principal: Principal) -> SessionOpening? { SessionOpening() }
    public func handle(_ request: BridgeRequest, id: String, session: ClientSession) async -> ServerMessage {
        .error(ErrorMessage(id: id, code: .codexUnavailable, message: "codex is not available on this bridge"))
    }
    public func acknowledged(_ seq: Int64, session: ClientSession) async {}
    public func sessionClosed(_ session: ClientSession) async {}
    public func isResponsive() async -> Bool { true }
}
