import BridgeProtocol
import Logging

/// Gives open sessions the scopes their devices hold now (the caller read them from the database): a session whose
/// scopes changed is told (`scopesChanged`) and logged. Synchronous, so the hub stops the events of a session that
/// lost `observe` in the same actor step (``ThreadHub/refreshScopes()``).
enum ScopeRefresh {
    /// The sessions whose scopes changed.
    static func apply(_ current: [String: Scopes], to sessions: some Sequence<ClientSession>) -> [ClientSession] {
        var changed: [ClientSession] = []
        for session in sessions {
            guard let deviceId = session.principal.deviceId, let scopes = current[deviceId], session.updateScopes(scopes) else { continue }
            changed.append(session)
            session.send(.scopesChanged(ScopesChanged(scopes: scopes)))
            session.logger.notice("Device scopes changed", metadata: ["bridge.device.scopes": "\(scopes)"])
        }
        return changed
    }
}
