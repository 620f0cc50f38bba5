import BridgeProtocol

/// The bridge's own events about a thread's running turn, built in one place: `bridge/turnFailed` (Codex stopped,
/// or the journal's recovery after a restart) and `bridge/shuttingDown` (the drain's grace began).
enum BridgeTurnEvent {
    static let failed = "bridge/turnFailed"
    static let shuttingDown = "bridge/shuttingDown"
    /// The `data.reason` of `bridge/turnFailed` for a turn the shutdown's grace did not see to its end.
    static let stoppedReason = "bridge stopped"

    /// `bridge/turnFailed`'s data.
    static func failedData(threadId: String, turnId: String, reason: String) -> JSONValue {
        ["threadId": .string(threadId), "turnId": .string(turnId), "reason": .string(reason)]
    }

    /// `bridge/shuttingDown`'s data: how long the turn has, in seconds.
    static func shuttingDownData(threadId: String, turnId: String, grace: Duration) -> JSONValue {
        let seconds = Double(grace.components.seconds) + Double(grace.components.attoseconds) / 1e18
        return ["threadId": .string(threadId), "turnId": .string(turnId), "graceSeconds": .number(seconds)]
    }
}
