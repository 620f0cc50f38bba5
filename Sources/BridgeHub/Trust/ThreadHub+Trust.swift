import BridgeProtocol
import BridgeStore
import Foundation
import Logging

/// Scopes and the audit log on the hub's side: every request's scope is checked first (``ScopeGate``), every
/// state-changing or refused request is audited, and device scopes changed in the database (by
/// `codex-bridge devices scope` in another process, or an admin device) reach open sessions through
/// ``refreshScopes()``.
extension ThreadHub {
    /// The audit entry for a request `session` made and the answer it got.
    static func auditEntry(_ request: BridgeRequest, answer: ServerMessage, session: ClientSession, at: Double) -> AuditEntry {
        var threadId = request.threadId
        var outcome = "ok"
        switch answer {
        case .error(let error): outcome = error.code.rawValue
        case .response(_, .threadStarted(let started)): threadId = started.threadId
        case .response(_, .threadForked(let forked)): threadId = forked.threadId
        case .response(_, .accepted(let accepted)): threadId = threadId ?? accepted.threadId
        default: break
        }
        var response: BridgeResponse?
        if case .response(_, let answered) = answer { response = answered }
        var detail = request.payload.auditDetail(answer: response)
        if case .error(let error) = answer, let scope = error.scope { detail = "needs \(scope.rawValue)" }
        return AuditEntry(
            at: at, actor: session.principal.deviceId == nil ? .sharedSecret : .device, deviceId: session.principal.deviceId,
            address: session.remoteAddress, kind: request.kind, threadId: threadId, outcome: outcome, detail: detail,
            onBehalfOf: request.onBehalfOf)
    }

    /// Writes the audit entry of one request; a failure is logged, never the request's.
    public func audit(_ request: BridgeRequest, answer: ServerMessage, session: ClientSession) async {
        await record(Self.auditEntry(request, answer: answer, session: session, at: storage.audit.timestamp))
    }

    /// Appends an entry to the audit log (the desk's answers, notification actions, pairings).
    public func record(_ entry: AuditEntry) async {
        do {
            try await storage.audit.record(entry)
        } catch {
            logger.warning("Cannot write the audit log", metadata: ["bridge.audit.kind": "\(entry.kind)", "error": "\(error)"])
        }
    }

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
