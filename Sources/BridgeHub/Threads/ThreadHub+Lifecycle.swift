import BridgeProtocol
import Logging

extension ThreadHub {
    /// Whether a Codex app-server has started (serve's startup QR waits for it).
    public var isCodexRunning: Bool { generation > 0 }

    /// The `data.reason` of `bridge/turnFailed` for a turn the shutdown's grace did not see to its end.
    static let stoppedReason = "bridge stopped"

    /// The bridge is shutting down: tells the subscribers of each running turn (`bridge/shuttingDown`, with the
    /// seconds it has), refuses new turns, and returns when no turn runs or `grace` has passed. Codex is stopped
    /// after this (services stop in reverse order), so a turn still running then fails with
    /// ``stoppedReason``.
    public func drain(grace: Duration) async {
        work.shuttingDown = true
        let running = book.runningTurns
        guard !running.isEmpty, grace > .zero else { return }
        let seconds = Double(grace.components.seconds) + Double(grace.components.attoseconds) / 1e18
        for (threadId, turnId) in running {
            let data: JSONValue = ["threadId": .string(threadId), "turnId": .string(turnId), "graceSeconds": .number(seconds)]
            publish(threadId: threadId) { seq in
                .event(ThreadEvent(seq: seq, threadId: threadId, turnId: turnId, type: Self.shuttingDownEvent, data: data))
            }
        }
        logger.notice(
            "Shutting down: letting running turns finish", metadata: ["bridge.turns": "\(running.count)", "bridge.grace": "\(grace)"])
        let deadline = ContinuousClock.now + grace
        while book.runningCount > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        let left = book.runningCount
        if left > 0 { logger.warning("Shutting down: turns still running are stopped", metadata: ["bridge.turns": "\(left)"]) }
    }

    /// The event a running turn's subscribers get when the bridge starts shutting down.
    static let shuttingDownEvent = "bridge/shuttingDown"

    /// A request that would start a turn while the bridge shuts down: `codex_unavailable` (nothing was done; a
    /// retry after the restart acts).
    func refuseWhileShuttingDown() throws {
        if work.shuttingDown { throw HubError(.codexUnavailable, "the workstation is shutting down; try again when it is back") }
    }
}
