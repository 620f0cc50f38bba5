import BridgeClient
import BridgeHub
import BridgeProtocol
import Foundation

/// Answers a notification's button (`POST /push/action`) where the approval lives: a linked machine's approval is
/// sent there as `approve` (through its link, whose scopes there apply), the home bridge's own goes to its hub.
/// The home bridge checked the action token and the device's `approve` scope before.
public struct FleetNotificationAnswerer: NotificationAnswering {
    let hub: ThreadHub
    let links: FleetLinks

    public init(hub: ThreadHub, links: FleetLinks) {
        self.hub = hub
        self.links = links
    }

    public func answerFromNotification(approvalId: String, decision: ApprovalDecision, owner: String) async throws -> Accepted {
        guard let machineId = links.directory.withLock({ $0.machine(ofApproval: approvalId) }), machineId != links.home.id else {
            return try await hub.answerFromNotification(approvalId: approvalId, decision: decision, owner: owner)
        }
        guard let link = await links.link(machineId) else {
            throw HubError(.machineUnavailable, "the machine that asked is not reachable now; nothing was sent to it")
        }
        if !owner.hasPrefix("notify:") { links.directory.withLock { $0.answered(approvalId, by: owner) } }
        // The same notification answered twice is one answer there.
        let id = ForwardedRequestId.make("push-", who: owner, id: approvalId)
        var request = BridgeRequest(.approve, Approve(approvalId: approvalId, decision: decision))
        let deviceId = owner.hasPrefix("notify:") ? nil : owner
        request.onBehalfOf = OnBehalfOf(actor: .notification, deviceId: deviceId, name: await hub.deviceName(deviceId))
        do {
            guard case .accepted(let accepted) = try await link.send(request, id: id)
            else {
                throw HubError(.internal, "\(link.ref.name) answered approve with something else")
            }
            return accepted
        } catch let error as BridgeRequestError {
            throw HubError(error.code, "\(link.ref.name): \(error.message)")
        } catch let error as FleetError {
            throw HubError(.machineUnavailable, error.errorMessage(id: id).message)
        }
    }
}
