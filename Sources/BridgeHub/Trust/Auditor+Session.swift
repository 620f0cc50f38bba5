import BridgeProtocol
import BridgeStore

/// The audit entry of one client request, from its session (who asked, from where): the hub and the fleet's
/// request layer in front of it write it alike, without the hub's executor (it reads nothing the hub holds).
extension Auditor {
    /// Writes the audit entry of `request` and its `answer`; a failure is logged, never the request's.
    public func record(_ request: BridgeRequest, answer: ServerMessage, session: ClientSession) async {
        await record(entry(for: request, answer: answer, deviceId: session.principal.deviceId, address: session.remoteAddress))
    }
}
