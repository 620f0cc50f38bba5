import BridgeProtocol
import CodexControl

/// `approveDeniedAction`: a person overrides the automatic reviewer's denial (``AutoReviewDesk``), once, through
/// Codex's `thread/approveGuardianDeniedAction`; every subscriber learns who (`bridge/deniedActionApproved`).
struct AutoReviewRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.onHub(.approveDeniedAction) { (hub, approve: ApproveDeniedAction, context) in
            guard let denial = hub.desks.autoReviews.denial(approve.reviewId, of: approve.threadId) else {
                throw HubError(
                    .notFound, "no denied automatic review \(approve.reviewId.prefix(128)) on this thread (already overridden or unknown)")
            }
            try await hub.ensureLoaded(approve.threadId, policy: context.policy)
            try await hub.codex.threadApproveGuardianDeniedAction(
                threadId: approve.threadId, event: denial.event, timeout: hub.policy.codexTimeout)
            hub.desks.autoReviews.remove(approve.reviewId)
            var data: [String: JSONValue] = ["threadId": .string(approve.threadId), "reviewId": .string(approve.reviewId)]
            if let deviceId = context.session.principal.deviceId { data["deviceId"] = .string(deviceId) }
            hub.publishEvent("bridge/deniedActionApproved", data: .object(data), threadId: approve.threadId)
            return .accepted(Accepted(threadId: approve.threadId))
        }
    }
}
