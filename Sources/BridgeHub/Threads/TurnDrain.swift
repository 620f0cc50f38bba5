import ServiceLifecycle

/// On graceful shutdown (SIGTERM, SIGINT), lets the running turns finish for a bounded time before anything
/// else stops (``ThreadHub/drain(grace:)``). It must be the last service of the group: services stop in
/// reverse order, so the clients, the server and Codex are still there while it waits.
public struct TurnDrain: Service, CustomStringConvertible {
    let hub: ThreadHub
    let grace: Duration

    public init(hub: ThreadHub, grace: Duration) {
        self.hub = hub
        self.grace = grace
    }

    public var description: String { "TurnDrain" }

    public func run() async throws {
        try? await gracefulShutdown()
        guard !Task.isCancelled else { return }
        await hub.drain(grace: grace)
    }
}
