/// Everything the bridge knows about one request kind, declared once (``RequestKind/descriptor``): decoding,
/// encoding, the scope check, exactly-once answers, the audit, the machine it goes to and the gate all read it.
public struct RequestDescriptor: Sendable {
    /// The type of the frame's members; decoding reads it, and a ``BridgeRequest`` of this kind carries one.
    public let payload: any RequestPayload.Type
    /// The kind of a successful answer.
    public let answer: ResponseKind
    /// The scope a device needs to make the request (checked before anything else).
    public let scope: Scope
    /// Whether a retry with the same `id` gets the first answer again instead of acting twice (clients the
    /// bridge can recognise; answers kept an hour).
    public let exactlyOnce: Bool
    /// Whether the request is written to the audit log (refusals always are), with its payload's
    /// ``RequestPayload/auditDetail(answer:)``.
    public let audited: Bool
    /// What the gate checks before the request's handler runs.
    public let gate: GateRule
    /// Which machine answers it when a phone drives a fleet.
    public let route: MachineRoute

    public init(
        _ payload: any RequestPayload.Type, answer: ResponseKind, scope: Scope, exactlyOnce: Bool = false, audited: Bool = false,
        gate: GateRule = .none, route: MachineRoute = .follows
    ) {
        self.payload = payload
        self.answer = answer
        self.scope = scope
        self.exactlyOnce = exactlyOnce
        self.audited = audited
        self.gate = gate
        self.route = route
    }

    /// A read: `observe`, answered each time, not audited.
    public static func read(
        _ payload: any RequestPayload.Type, answer: ResponseKind, gate: GateRule = .none, route: MachineRoute = .follows
    ) -> Self {
        Self(payload, answer: answer, scope: .observe, gate: gate, route: route)
    }

    /// An action: answered exactly once and audited.
    public static func action(_ payload: any RequestPayload.Type, answer: ResponseKind, scope: Scope, gate: GateRule = .thread) -> Self {
        Self(payload, answer: answer, scope: scope, exactlyOnce: true, audited: true, gate: gate)
    }

    /// A change that is audited but not deduplicated (renaming, archiving, the admin's changes: doing it twice
    /// is doing it once).
    public static func change(
        _ payload: any RequestPayload.Type, answer: ResponseKind, scope: Scope, gate: GateRule = .none, route: MachineRoute = .follows
    ) -> Self {
        Self(payload, answer: answer, scope: scope, audited: true, gate: gate, route: route)
    }
}

/// What the gate (roots, sandbox, approval policy) checks for a kind of request, after its scope.
public enum GateRule: Sendable, Hashable {
    /// Names no thread or directory the gate must judge (lists, devices, machines, push; `unsubscribe`, which
    /// only drops the session's own subscription).
    case none
    /// The thread it names must run inside the roots; turns it starts run with a policy the bridge allows. A
    /// request naming every thread (`subscribe "*"`) needs only its scope.
    case thread
    /// The thread of the approval it answers.
    case approval
    /// The thread of the question it answers.
    case question
    /// A new thread: its directory inside the roots, its sandbox and approval policy allowed.
    case newThread
    /// A directory inside the roots.
    case directory
    /// A file inside the thread's directory, not inside `.git`.
    case file
    /// The thread's settings: a permission profile whose sandbox the bridge allows.
    case settings
}

/// Which machine answers a kind of request from a phone that drives a fleet (`hello.fleet`); a bridge without
/// linked machines answers every kind but ``fleet``'s itself.
public enum MachineRoute: Sendable, Hashable {
    /// The machine the request names (`machine`), else its thread's, approval's or question's; else this bridge.
    case follows
    /// Every machine: this bridge's answer merged with each linked machine's (`listThreads`).
    case everyMachine
    /// This bridge, whose journal holds what the links relay: a linked thread's subscription is served here.
    case relayedHere
    /// This bridge only (`unsubscribe` drops the session's own subscription).
    case here
    /// Never forwarded: a linked machine's is refused (`openPreview`: its tab would open on that machine's port).
    case notForwarded
    /// The fleet layer's own (the linked machines); `unknown_kind` on a bridge without one.
    case fleet
}
