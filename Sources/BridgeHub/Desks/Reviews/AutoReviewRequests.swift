import BridgeProtocol
import CodexControl

/// `approveDeniedAction`: a person overrides the automatic reviewer's denial (``AutoReviewDesk``), once, through
/// Codex's `thread/approveGuardianDeniedAction`; every subscriber learns who (`bridge/deniedActionApproved`). It runs
/// beside the hub: the denial is taken in one step of the hub's port, kept again when Codex refuses.
struct AutoReviewRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.approveDeniedAction) { (services, approve: ApproveDeniedAction, context) in
            // Taken in the step that finds it: a second override meanwhile finds none.
            guard let denial = await services.hub.takeDenial(approve.reviewId, of: approve.threadId) else {
                throw HubError(
                    .notFound, "no denied automatic review \(approve.reviewId.prefix(128)) on this thread (already overridden or unknown)")
            }
            do {
                try await services.ensureLoaded(approve.threadId, policy: context.policy)
                try await services.codex.threadApproveGuardianDeniedAction(
                    threadId: approve.threadId, event: denial.event, timeout: services.policy.codexTimeout)
            } catch {
                await services.hub.restoreDenial(approve.reviewId, denial)
                throw error
            }
            var data: [String: JSONValue] = ["threadId": .string(approve.threadId), "reviewId": .string(approve.reviewId)]
            if let deviceId = context.session.principal.deviceId { data["deviceId"] = .string(deviceId) }
            await services.hub.publishEvent(
                "bridge/deniedActionApproved", data: .object(data), threadId: approve.threadId, turnId: nil, dataJSON: nil)
            return .accepted(Accepted(threadId: approve.threadId))
        }
    }
}
