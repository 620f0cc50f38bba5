import BridgeProtocol
import BridgeStore
import Foundation
import Logging

/// Scopes on the hub's side: every request's scope is checked first (``ScopeGate``), every state-changing or
/// refused request is audited (``Auditor/record(_:answer:session:)``), and device scopes changed in the database (by
/// `codex-bridge devices scope` in another process, or an admin device) reach open sessions through
/// ``refreshScopes()``.
extension ThreadHub {
    /// Sends `message` to every connection of device `deviceId`.
    func send(_ message: ServerMessage, toDevice deviceId: String) {
        for state in sessions.values where state.session.principal.deviceId == deviceId { state.session.send(message) }
    }

    /// Gives every device session the scopes the database holds for its device now; a session whose scopes
    /// changed is told (`scopesChanged`), and one that lost `observe` stops receiving events. Returns how many
    /// sessions changed. Revoked devices are left to the revocation watcher (their connections close).
    @discardableResult
    public func refreshScopes() async -> Int {
        let deviceIds = Set(sessions.values.compactMap { $0.session.principal.deviceId })
        guard !deviceIds.isEmpty else { return 0 }
        let current: [String: Scopes]
        do {
            current = try await storage.devices.scopes(among: deviceIds)
        } catch {
            logger.warning("Cannot read device scopes", metadata: ["error": "\(error)"])
            return 0
        }
        var changed = 0
        for state in sessions.values {
            guard let deviceId = state.session.principal.deviceId, let scopes = current[deviceId] else { continue }
            guard state.session.updateScopes(scopes) else { continue }
            changed += 1
            state.session.send(.scopesChanged(ScopesChanged(scopes: scopes)))
            state.session.logger.notice("Device scopes changed", metadata: ["bridge.device.scopes": "\(scopes)"])
            if !scopes.contains(.observe) {
                for threadId in events.fanOut.threads(of: state.session.id) { unsubscribe(state.session, from: threadId) }
                unsubscribe(state.session, from: "*")
            }
        }
        return changed
    }
}
