import BridgeProtocol
import BridgePush

/// `pushSubscribe`, `pushUnsubscribe` (paired devices only: revoking one deletes its subscriptions, while a
/// rotated shared secret could not take a shared-secret client's back) and `presence`.
struct PushRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.presence) { (services, presence: Presence, context) in
            services.push?.signal(.presence(sessionId: context.session.id, visible: presence.visible))
            return .accepted(Accepted())
        }
        routes.on(.pushSubscribe) { (services, subscribe: PushSubscribe, context) in
            let (push, owner) = try Self.subscriber(services.push, context)
            do throws(PushError) {
                return .pushSubscribed(PushSubscribed(subscriptionId: try await push.subscribe(owner: owner, subscribe)))
            } catch {
                throw HubError(BridgeErrorCode(error.code), error.message)
            }
        }
        routes.on(.pushUnsubscribe) { (services, unsubscribe: PushUnsubscribe, context) in
            let (push, owner) = try Self.subscriber(services.push, context)
            guard try await push.unsubscribe(owner: owner, id: unsubscribe.subscriptionId) else {
                throw HubError(.notFound, "no push subscription \(unsubscribe.subscriptionId.prefix(64)) for this device")
            }
            return .accepted(Accepted())
        }
    }

    private static func subscriber(_ push: PushCoordinator?, _ context: RequestContext) throws -> (PushCoordinator, String) {
        guard let push else { throw HubError(.forbidden, "push notifications are turned off on this bridge (--no-push)") }
        guard let owner = context.session.principal.deviceId else {
            throw HubError(.forbidden, "push notifications need a paired device (codex-bridge pair), not the shared secret")
        }
        return (push, owner)
    }
}
