import BridgeGit
import BridgeProtocol
import CodexControl
import Foundation

/// The requests on threads and turns still isolated to the hub: starting and steering them, subscriptions,
/// approvals. Interrupting and what a thread's directory holds are ``ThreadReads``';
/// listing, housekeeping, forks, reviews, goals, the queue and questions register their own.
struct ThreadRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.onHub(.startThread) { (hub, start: StartThread, context) in
            .threadStarted(
                try await hub.startThread(start, cwd: context.cwd ?? start.cwd, policy: context.policy, session: context.session))
        }
        routes.onHub(.sendMessage) { (hub, message: SendMessage, context) in
            .accepted(try await hub.sendMessage(message, policy: context.policy, session: context.session))
        }
        routes.onHub(.subscribe) { (hub, subscription: Subscribe, context) in
            if subscription.threadId != "*" { try hub.checkSubscriptionCount(context.session) }
            return .subscribed(await hub.subscribeResuming(context.session, to: subscription.threadId, afterSeq: subscription.afterSeq))
        }
        routes.onHub(.unsubscribe) { (hub, ref: ThreadRef, context) in
            hub.unsubscribe(context.session, from: ref.threadId)
            await hub.remember(context.session, subscribedTo: ref.threadId, false)
            return .unsubscribed(SubscriptionChanged(threadId: ref.threadId))
        }
        routes.onHub(.approve) { (hub, approve: Approve, context) in
            let name = await hub.deviceName(context.session.principal.deviceId)
            let answerer = ApprovalAnswerer.device(context.session.principal.deviceId)
            return .accepted(try hub.resolveApproval(approve.approvalId, approve.decision, by: answerer, deviceName: name))
        }
    }
}
