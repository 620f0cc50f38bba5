import BridgeProtocol
import BridgeStore
import Foundation

/// The `admin` requests — list, scope, rename and revoke devices, mint pairing codes, read the audit log: what
/// `codex-bridge devices`, `pair` and `audit` do on the workstation, for a phone trusted with it — and
/// `requestScopes`, a device asking the workstation for more. The work is ``DeviceAdmin``'s, beside the hub;
/// the hub's port says which devices are connected and tells open sessions their new scopes.
struct DeviceRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.listDevices) { (services, _: ListDevices, context) in
            let listed = try await services.deviceAdmin.list()
            let connected = await services.hub.connectedDeviceIds
            return .devices(
                DeviceList(devices: listed.map { DeviceAdmin.summary($0.record, of: connected, for: context.session, recent: $0.recent) }))
        }
        routes.on(.setDeviceScopes) { (services, set: SetDeviceScopes, context) in
            let record = try await services.deviceAdmin.setScopes(set)
            _ = await services.refreshScopes()
            return try await Self.changed(record, services, context)
        }
        routes.on(.renameDevice) { (services, rename: RenameDevice, context) in
            try await Self.changed(try await services.deviceAdmin.rename(rename), services, context)
        }
        routes.on(.revokeDevice) { (services, revoke: RevokeDevice, context) in
            try await Self.changed(try await services.deviceAdmin.revoke(revoke), services, context)
        }
        routes.on(.pairDevice) { (services, pair: PairDevice, _) in .pairingCode(try await services.deviceAdmin.pair(pair)) }
        routes.on(.listAudit) { (services, list: ListAudit, _) in
            // The entries of answers already sent are written after them (ExactlyOnce): the list includes them.
            await services.answers.settled()
            return .audit(try await services.deviceAdmin.auditEntries(list))
        }
        routes.on(.requestScopes) { (services, ask: RequestScopes, context) in
            .scopeRequest(try await services.deviceAdmin.ask(ask, deviceId: context.session.principal.deviceId))
        }
    }

    /// A device's changed record as the admin sees it (connected or not now).
    private static func changed(_ record: DeviceRecord, _ services: HubServices, _ context: RequestContext) async throws -> BridgeResponse {
        .device(DeviceChanged(device: DeviceAdmin.summary(record, of: await services.hub.connectedDeviceIds, for: context.session)))
    }
}
