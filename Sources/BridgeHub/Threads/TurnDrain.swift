import Logging
import ServiceLifecycle

/// On graceful shutdown (SIGTERM, SIGINT), lets the running turns finish for a bounded time before anything
/// else stops: the hub refuses new turns and tells each running turn's subscribers (``ThreadHub/beginShutdown(grace:)``),
/// then this waits until no turn runs or `grace` has passed. It must be the last service of the group: services
/// stop in reverse order, so the clients, the server and Codex are still there while it waits; a turn still
/// running when Codex stops fails as `bridge stopped`.
public struct TurnDrain: Service, CustomStringConvertible {
    let hub: ThreadHub
    let grace: Duration
    let logger: Logger

    public init(hub: ThreadHub, grace: Duration, logger: Logger) {
        self.hub = hub
        self.grace = grace
        self.logger = logger
    }

    public var description: String { "TurnDrain" }

    public func run() async throws {
        try? await gracefulShutdown()
        guard !Task.isCancelled else { return }
        let running = await hub.beginShutdown(grace: grace)
        guard running > 0, grace > .zero else { return }
        logger.notice("Shutting down: letting running turns finish", metadata: ["bridge.turns": "\(running)", "bridge.grace": "\(grace)"])
        let deadline = ContinuousClock.now + grace
        while await hub.runningTurnCount > 0, ContinuousClock.now < deadline {
            do { try await Task.sleep(for: .milliseconds(50)) } catch { break }
        }
        let left = await hub.runningTurnCount
        if left > 0 { logger.warning("Shutting down: turns still running are stopped", metadata: ["bridge.turns": "\(left)"]) }
    }
}
