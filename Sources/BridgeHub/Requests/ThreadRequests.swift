import BridgeGit
import BridgeProtocol
import CodexControl
import Foundation

/// The requests on threads and turns, beside the hub (through its port): new threads (``ThreadStarter``), messages
/// (``MessageSender``), subscribing (``Subscriber``), unsubscribing and approvals. Interrupting and what a thread's directory holds are ``ThreadReads``';
/// listing, housekeeping, forks, reviews, goals, the queue and questions register their own.
struct ThreadRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.startThread) { (services, start: StartThread, context) in
            .threadStarted(
                try await ThreadStarter(services: services).start(
                    start, cwd: context.cwd ?? start.cwd, policy: context.policy, session: context.session))
        }
        routes.on(.sendMessage) { (services, message: SendMessage, context) in
            .accepted(try await MessageSender(services: services).send(message, policy: context.policy, session: context.session))
        }
        routes.on(.subscribe) { (services, subscription: Subscribe, context) in
            .subscribed(
                try await Subscriber(services: services).subscribe(
                    context.session, to: subscription.threadId, afterSeq: subscription.afterSeq))
        }
        routes.on(.unsubscribe) { (services, ref: ThreadRef, context) in
            await services.hub.unsubscribe(context.session, from: ref.threadId)
            await services.remember(context.session, subscribedTo: ref.threadId, false)
            return .unsubscribed(SubscriptionChanged(threadId: ref.threadId))
        }
        // The device's name is looked up first; the approval is checked and resolved in one step after it.
        routes.on(.approve) { (services, approve: Approve, context) in
            let name = await services.deviceName(context.session.principal.deviceId)
            let answerer = ApprovalAnswerer.device(context.session.principal.deviceId)
            return .accepted(try await services.hub.resolveApproval(approve.approvalId, approve.decision, by: answerer, deviceName: name))
        }
    }
}
