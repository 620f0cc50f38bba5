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
    /// sessions changed. Revoked devices are left to the revocation watcher (their connections close). The store is
    /// read beside the hub (``HubServices/refreshScopes()``).
    @discardableResult
    public nonisolated func refreshScopes() async -> Int { await services.refreshScopes() }

    /// Gives the open sessions of the devices in `current` those scopes, in one step: one that lost `observe` gets
    /// no event after it.
    func applyScopes(_ current: [String: Scopes]) -> Int {
        let changed = ScopeRefresh.apply(current, to: sessions.values.map(\.session))
        for session in changed where !session.scopes.contains(.observe) {
            for threadId in events.fanOut.threads(of: session.id) { unsubscribe(session, from: threadId) }
            unsubscribe(session, from: "*")
        }
        return changed.count
    }
}
