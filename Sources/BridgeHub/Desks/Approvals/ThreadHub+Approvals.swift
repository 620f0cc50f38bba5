import BridgeProtocol
import CodexControl
import Foundation
import Logging

/// The hub's side of the ``ApprovalDesk``: every answer to an approval, from any path, is performed here once.
extension ThreadHub {
    /// Answers approval `approvalId` with `decision`: the first answer wins; Codex gets the result the approval's
    /// kind expects; every subscriber gets `approvalResolved` (journaled); push follows up. No suspension point
    /// between taking the approval out and answering Codex.
    func resolveApproval(
        _ approvalId: String, _ decision: ApprovalDecision, by answerer: ApprovalAnswerer, deviceName: String? = nil
    ) throws -> Accepted {
        let answer = try desks.approvals.answer(approvalId, decision: decision)
        do {
            try codex.respond(to: answer.codexId, result: answer.result)
        } catch {
            throw HubError(.approvalNotPending, "approval \(approvalId.prefix(128)) can no longer be answered: codex restarted")
        }
        BridgeMetrics.shared.approvalDecided(after: ContinuousClock.now - answer.requestedAt)
        let threadId = answer.threadId
        let deviceId = answerer.deviceId
        let at = Int64(Date().timeIntervalSince1970)
        publish(threadId: threadId) { seq in
            .approvalResolved(
                ApprovalResolved(
                    seq: seq, approvalId: approvalId, threadId: threadId, decision: decision, deviceId: deviceId, deviceName: deviceName,
                    at: at))
        }
        pushSignals.approvalResolved(approvalId, decision: decision, deviceId: deviceId)
        var metadata: Logger.Metadata = ["bridge.approval.id": "\(approvalId)", "bridge.approval.decision": "\(decision.rawValue)"]
        if case .notification(let owner) = answerer { metadata["bridge.push.owner"] = "\(owner)" }
        logger.info("Approval answered", metadata: metadata)
        return Accepted(threadId: threadId, approvalId: approvalId)
    }

    /// Answers an approval from a notification's action (`POST /push/action`): the gate first (the approval's
    /// thread inside the roots), then exactly the path of `approve` (``resolveApproval(_:_:by:)``).
    public func answerFromNotification(approvalId: String, decision: ApprovalDecision, owner: String) async throws -> Accepted {
        let facts = try await threadFacts(try desks.approvals.pendingThread(of: approvalId))
        if case .refused(let code, let message) = gate.decide(
            BridgeRequest(.approve, Approve(approvalId: approvalId, decision: decision)), thread: facts)
        {
            throw HubError(code, message)
        }
        let name = await deviceName(ApprovalAnswerer.notification(owner: owner).deviceId)
        // The checks above suspended: if the approval was answered meanwhile, the desk says so.
        return try resolveApproval(approvalId, decision, by: .notification(owner: owner), deviceName: name)
    }
}
