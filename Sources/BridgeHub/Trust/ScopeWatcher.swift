import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import ServiceLifecycle

/// Gives open connections the scopes their devices hold in the database, every `interval` (1 s: a
/// `codex-bridge devices scope` in another process takes effect within 2 s), and tells a device when its request
/// for scopes ended without them (`scopeRequestEnded`: denied or expired). A `Service`; ends on graceful shutdown.
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
            var asks = ScopeAsks()
            var since = Date()
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                await hub.refreshScopes()
                let now = Date()
                await tellEndedRequests(after: since.addingTimeInterval(-ScopeAsks.overlap), through: now, &asks)
                since = now
            }
        }
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
