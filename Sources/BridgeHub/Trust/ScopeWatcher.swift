import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import ServiceLifecycle

/// Gives open connections the scopes their devices hold in the database whenever the trust tables change (the
/// database's ``StateChanges``: this process's writes at once, another process's — `codex-bridge devices scope` —
/// as soon as serve's state-directory watch sees it), and tells a device when its request for scopes ended without
/// them (`scopeRequestEnded`: denied, or expired — the one thing a clock decides, so it also wakes at the next
/// expiry). A `Service`; ends on graceful shutdown.
public struct ScopeWatcher: Service, CustomStringConvertible {
    private let hub: ThreadHub
    private let changes: StateChanges

    public init(hub: ThreadHub, changes: StateChanges? = nil) {
        self.hub = hub
        self.changes = changes ?? hub.storage.devices.database.changes
    }

    public var description: String { "ScopeWatcher" }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var asks = ScopeAsks()
            var since = Date()
            var seen = changes.generation
            while !Task.isCancelled {
                seen = await changes.wait(after: seen, until: await nextExpiry())
                if Task.isCancelled { return }
                await hub.refreshScopes()
                let now = Date()
                await tellEndedRequests(after: since.addingTimeInterval(-ScopeAsks.overlap), through: now, &asks)
                since = now
            }
        }
    }

    /// Just after the first waiting request for scopes expires (nil: none waits).
    private func nextExpiry() async -> ContinuousClock.Instant? {
        guard let waiting = try? await hub.storage.devices.scopeRequests(), let first = waiting.map(\.expiresAt).min() else { return nil }
        return .now.advanced(by: .milliseconds(Int64(max(0, min(first.timeIntervalSinceNow, 86_400)) * 1000) + 50))
    }

    /// After the scopes are refreshed: requests refused (by any process) or expired in the window, whose devices
    /// still lack the scopes, are told to those devices' connections.
    private func tellEndedRequests(after: Date, through now: Date, _ asks: inout ScopeAsks) async {
        let devices = hub.storage.devices
        guard let ended = try? await devices.endedScopeRequests(after: after, through: now) else { return }
        let fresh = asks.untold(ended, now: now)
        guard !fresh.isEmpty, let held = try? await devices.scopes(among: fresh.map(\.request.deviceId)) else { return }
        for request in fresh {
            guard let message = ScopeAsks.message(for: request, held: held[request.request.deviceId]) else { continue }
            await hub.send(.scopeRequestEnded(message), toDevice: request.request.deviceId)
        }
    }
}
