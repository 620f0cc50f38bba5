import BridgeProtocol

/// The scope half of the gate: whether a connection may make a request at all, asked before anything else
/// (before the request is deduplicated, before a thread is looked up, before Codex hears of it). Every
/// WebSocket request kind needs the scope ``RequestKind/scope`` names; the HTTP routes ask for theirs
/// (uploads `operate`, downloads and metrics `observe`, notification actions `approve`).
///
/// The shared secret holds every scope; a paired device holds what `pair --scope` gave it and `devices scope`
/// changed since.
public enum ScopeGate {
    /// A refusal: `forbidden`, naming the scope.
    public struct Refusal: Sendable, Hashable, Error {
        public let scope: Scope
        public let message: String

        /// The `error` frame answering request `id`.
        public func errorMessage(id: String?) -> ErrorMessage {
            ErrorMessage(id: id, code: .forbidden, message: message, scope: scope)
        }
    }

    /// nil when `scopes` hold `needed`; else why not, in one line a person can act on.
    public static func check(_ needed: Scope, scopes: Scopes, principal: Principal, what: String) -> Refusal? {
        guard !scopes.contains(needed) else { return nil }
        var message = "this device may not \(Self.verb(needed)): \(what) needs the scope '\(needed.rawValue)'"
        if let deviceId = principal.deviceId {
            message += "; on the workstation: codex-bridge devices scope \(deviceId) \(scopes.union(Scopes([needed])))"
        }
        return Refusal(scope: needed, message: message)
    }

    /// ``check(_:scopes:principal:what:)`` for a WebSocket request.
    public static func check(_ request: BridgeRequest, session: ClientSession) -> Refusal? {
        check(request.requestKind.scope, scopes: session.scopes, principal: session.principal, what: request.kind)
    }

    static func verb(_ scope: Scope) -> String {
        switch scope {
        case .observe: "see threads"
        case .operate: "drive threads"
        case .approve: "answer approvals"
        case .publish: "push or open pull requests"
        case .run: "run commands"
        case .admin: "manage devices"
        }
    }
}
