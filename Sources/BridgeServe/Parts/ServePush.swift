import BridgeHub
import BridgePush
import BridgeServer
import BridgeStore
import Foundation
import Logging
import ServiceLifecycle

/// `serve`'s notifications: the VAPID key, the push coordinator and its `/push/action` route (in ``HTTPRoutes``), the sleep
/// inhibitor. The coordinator and the inhibitor are given to the hub when it is made (``prepare(_:paths:devices:logger:)``);
/// the route, which answers through the hub, is added once the hub exists (``withRoute(hub:devices:answerer:)``).
package struct ServePush: Sendable {
    package let coordinator: PushCoordinator?
    package var route: PushActionRoute?
    package let inhibitor: SleepInhibitor?

    /// The VAPID public key for `helloAck.server.pushPublicKey`; nil with push off.
    package var publicKey: String? { coordinator?.publicKey }

    /// The coordinator as a service (nil: none).
    package var services: [ServiceGroupConfiguration.ServiceConfiguration] {
        (coordinator.map { [.init(service: $0)] } ?? []) + (inhibitor.map { [.init(service: $0)] } ?? [])
    }

    /// This push with the `/push/action` route, which answers through `hub` (none with push off).
    package func withRoute(hub: ThreadHub, devices: DeviceRegistry, answerer: any NotificationAnswering) -> ServePush {
        var push = self
        push.route = coordinator.map { PushActionRoute(tokens: $0, devices: devices, auditor: hub.auditor, answerer: answerer) }
        return push
    }

    package static func prepare(_ settings: PushSettings, paths: StatePaths, devices: DeviceRegistry, logger: Logger) throws -> ServePush {
        let inhibitor = settings.inhibit ? SleepInhibitor(logger: logger) : nil
        let pushOn = settings.enabled || !settings.notifyURLs.isEmpty
        guard pushOn else {
            return ServePush(coordinator: nil, route: nil, inhibitor: inhibitor)
        }
        let keyFile = VAPIDKey.file(in: paths)
        let key: VAPIDKey
        do {
            if let tightened = try SecretFile.secure(keyFile) { logger.warning("\(tightened)") }
            key = try VAPIDKey.loadOrCreate(at: keyFile)
        } catch {
            throw ServeError(.hub, .push, "cannot prepare the push key \(keyFile.path): \(error)")
        }
        var targets: [NotifyTarget] = []
        for url in settings.notifyURLs {
            do {
                targets.append(try NotifyTarget(url))
            } catch {
                throw ServeError(.hub, .push, "--notify-url: \(error.message)")
            }
        }
        let coordinator = PushCoordinator(
            configuration: .init(
                delay: settings.delay.duration, subject: settings.subject ?? PushSettings.defaultSubject(),
                tokenLifetime: settings.tokenLifetime.duration, notifyTargets: targets, actionBaseURL: settings.actionURL,
                endpoints: PushEndpointPolicy(allowedHosts: settings.allowPushHosts)),
            key: key, store: PushSubscriptionStore(database: devices.database), devices: devices,
            webPush: settings.enabled, logger: logger)
        logger.info(
            "Notifications on",
            metadata: [
                "bridge.push.web": "\(settings.enabled)", "bridge.push.delay": "\(settings.delay)",
                "bridge.notify.targets": "\(targets.map(\.description).joined(separator: ", "))",
            ])
        return ServePush(coordinator: coordinator, route: nil, inhibitor: inhibitor)
    }
}
