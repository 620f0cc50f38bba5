import BridgeHub
import BridgePush
import BridgeServer
import BridgeStore
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// `serve`'s notifications: the VAPID key, the push coordinator and its `/push/action` route, the sleep
/// inhibitor, all attached to the hub.
struct ServePush: Sendable {
    let coordinator: PushCoordinator?
    let route: PushActionRoute?
    let inhibitor: SleepInhibitor?

    /// The VAPID public key for `helloAck.server.pushPublicKey`; nil with push off.
    var publicKey: String? { coordinator?.publicKey }

    /// The coordinator as a service (nil: none).
    var services: [ServiceGroupConfiguration.ServiceConfiguration] {
        (coordinator.map { [.init(service: $0)] } ?? []) + (inhibitor.map { [.init(service: $0)] } ?? [])
    }

    func addRoutes(to router: Router<BridgeRequestContext>, authenticator: CredentialCheck) {
        route?.addRoutes(to: router, authenticator: authenticator)
    }

    static func prepare(
        _ settings: PushSettings, paths: StatePaths, devices: DeviceRegistry, hub: ThreadHub, answerer: any NotificationAnswering,
        logger: Logger
    ) async throws
        -> ServePush
    {
        let inhibitor = settings.inhibit ? SleepInhibitor(logger: logger) : nil
        let pushOn = settings.enabled || !settings.notifyURLs.isEmpty
        guard pushOn else {
            await hub.attach(push: nil, inhibitor: inhibitor)
            return ServePush(coordinator: nil, route: nil, inhibitor: inhibitor)
        }
        let keyFile = VAPIDKey.file(in: paths)
        let key: VAPIDKey
        do {
            if let tightened = try SecretFile.secure(keyFile) { logger.warning("\(tightened)") }
            key = try VAPIDKey.loadOrCreate(at: keyFile)
        } catch {
            throw CommandFailure("cannot prepare the push key \(keyFile.path): \(error)")
        }
        var targets: [NotifyTarget] = []
        for url in settings.notifyURLs {
            do {
                targets.append(try NotifyTarget(url))
            } catch {
                throw CommandFailure("--notify-url: \(error.message)")
            }
        }
        let coordinator = PushCoordinator(
            configuration: .init(
                delay: settings.delay.duration, subject: settings.subject ?? PushSettings.defaultSubject(),
                tokenLifetime: settings.tokenLifetime.duration, notifyTargets: targets, actionBaseURL: settings.actionURL,
                endpoints: PushEndpointPolicy(allowedHosts: settings.allowPushHosts)),
            key: key, store: PushSubscriptionStore(database: devices.database), devices: devices,
            webPush: settings.enabled, logger: logger)
        await hub.attach(push: coordinator, inhibitor: inhibitor)
        logger.info(
            "Notifications on",
            metadata: [
                "bridge.push.web": "\(settings.enabled)", "bridge.push.delay": "\(settings.delay)",
                "bridge.notify.targets": "\(targets.map(\.description).joined(separator: ", "))",
            ])
        return ServePush(
            coordinator: coordinator, route: PushActionRoute(hub: hub, push: coordinator, devices: devices, answerer: answerer),
            inhibitor: inhibitor)
    }
}
