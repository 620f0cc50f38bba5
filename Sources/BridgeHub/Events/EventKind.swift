import CodexControl

/// What the thread book, the desks and the push signals see of a thread event: one of Codex's kinds, or the
/// bridge's own `bridge/turnFailed` (a turn Codex will not finish), which they treat as a turn's end.
enum EventKind: Hashable, Sendable {
    case codex(CodexNotification.Kind)
    /// `bridge/turnFailed` (``BridgeTurnEvent/failed``).
    case turnFailed
    /// A method this bridge does not know (a newer Codex's): relayed, never looked into.
    case unknown

    init(_ kind: CodexNotification.Kind?) {
        self = kind.map(Self.codex) ?? .unknown
    }

    /// The kind of an event `type` as the journal holds it.
    init(method: String) {
        self = method == BridgeTurnEvent.failed ? .turnFailed : Self(CodexNotification.Kind(method: method))
    }

    /// A turn ended: Codex's `turn/completed`, or the bridge's `bridge/turnFailed`.
    var endsTurn: Bool { self == .codex(.turnCompleted) || self == .turnFailed }
}
