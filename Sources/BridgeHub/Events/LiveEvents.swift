import CodexControl

/// Where the hub hands Codex's live-only notifications (``EventDescriptor/Disposition/live``: voice's
/// `thread/realtime/outputAudio/delta`), in Codex's order, as they come: no seq, no journal, no replay.
///
/// Called on the hub's event path (inside its actor step): return at once, and drop rather than wait when the
/// receiver is behind. The default drops everything (no live channel yet).
public protocol LiveEvents: Sendable {
    /// A live notification of `threadId` (its params as Codex wrote them in `note.paramsJSON` when known).
    func live(_ note: CodexNotification, threadId: String)
}

/// Drops every live notification.
public struct NoLiveEvents: LiveEvents {
    public init() {}
    public func live(_ note: CodexNotification, threadId: String) {}
}
