/// Everything the bridge knows about one request kind, declared once (``RequestKind/descriptor``): decoding,
/// encoding, the scope check, exactly-once answers, the audit and the gate all read it.
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

    public init(
        _ payload: any RequestPayload.Type, answer: ResponseKind, scope: Scope, exactlyOnce: Bool = false, audited: Bool = false,
        gate: GateRule = .none
    ) {
        self.payload = payload
        self.answer = answer
        self.scope = scope
        self.exactlyOnce = exactlyOnce
        self.audited = audited
        self.gate = gate
    }

    /// A read: `observe`, answered each time, not audited.
    public static func read(_ payload: any RequestPayload.Type, answer: ResponseKind, gate: GateRule = .none) -> Self {
        Self(payload, answer: answer, scope: .observe, gate: gate)
    }

    /// An action: answered exactly once and audited.
    public static func action(_ payload: any RequestPayload.Type, answer: ResponseKind, scope: Scope, gate: GateRule = .thread) -> Self {
        Self(payload, answer: answer, scope: scope, exactlyOnce: true, audited: true, gate: gate)
    }

    /// A change that is audited but not deduplicated (renaming, archiving, the admin's changes: doing it twice
    /// is doing it once).
    public static func change(_ payload: any RequestPayload.Type, answer: ResponseKind, scope: Scope, gate: GateRule = .none) -> Self {
        Self(payload, answer: answer, scope: scope, audited: true, gate: gate)
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
