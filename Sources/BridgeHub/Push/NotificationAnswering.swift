import BridgeProtocol

/// What answers an approval from a notification's button (`POST /push/action`): the hub for its own approvals; a
/// bridge with linked machines sends a linked machine's approval there.
public protocol NotificationAnswering: Sendable {
    /// Answers approval `approvalId` for the device (or notification target) `owner` the action token was sent to.
    /// - Throws: an error with a ``BridgeErrorCode`` (`approval_not_pending` when it was answered meanwhile).
    func answerFromNotification(approvalId: String, decision: ApprovalDecision, owner: String) async throws -> Accepted
}
