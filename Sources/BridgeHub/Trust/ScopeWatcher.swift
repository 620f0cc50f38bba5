import Logging
import ServiceLifecycle

/// Gives open connections the scopes their devices hold in the database, every `interval` (1 s: a
/// `codex-bridge devices scope` in another process takes effect within 2 s). A `Service`; ends on graceful
/// shutdown.
public struct ScopeWatcher: Service, CustomStringConvertible {
    private let hub: ThreadHub
    private let interval: Duration

    public init(hub: ThreadHub, interval: Duration = .seconds(1)) {
        self.hub = hub
        self.interval = interval
    }

    public var description: String { "ScopeWatcher" }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                await hub.refreshScopes()
            }
        }
    }
}
