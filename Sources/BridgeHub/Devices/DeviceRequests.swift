import BridgeProtocol
import BridgeStore
import Foundation

/// The `admin` requests — list, scope, rename and revoke devices, mint pairing codes, read the audit log: what
/// `codex-bridge devices`, `pair` and `audit` do on the workstation, for a phone trusted with it — and
/// `requestScopes`, a device asking the workstation for more. The work is ``DeviceAdmin``'s; the hub says which
/// devices are connected and tells open sessions their new scopes.
struct DeviceRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.listDevices) { (hub, _: ListDevices, context) in
            let listed = try await hub.deviceAdmin.list()
            return .devices(
                DeviceList(
                    devices: listed.map {
                        DeviceAdmin.summary($0.record, of: hub.connectedDeviceIds, for: context.session, recent: $0.recent)
                    }))
        }
        routes.on(.setDeviceScopes) { (hub, set: SetDeviceScopes, context) in
            let record = try await hub.deviceAdmin.setScopes(set)
            await hub.refreshScopes()
            return .device(DeviceChanged(device: DeviceAdmin.summary(record, of: hub.connectedDeviceIds, for: context.session)))
        }
        routes.on(.renameDevice) { (hub, rename: RenameDevice, context) in
            .device(
                DeviceChanged(
                    device: DeviceAdmin.summary(try await hub.deviceAdmin.rename(rename), of: hub.connectedDeviceIds, for: context.session))
            )
        }
        routes.on(.revokeDevice) { (hub, revoke: RevokeDevice, context) in
            .device(
                DeviceChanged(
                    device: DeviceAdmin.summary(try await hub.deviceAdmin.revoke(revoke), of: hub.connectedDeviceIds, for: context.session))
            )
        }
        routes.on(.pairDevice) { (hub, pair: PairDevice, _) in .pairingCode(try await hub.deviceAdmin.pair(pair)) }
        routes.on(.listAudit) { (hub, list: ListAudit, _) in
            // The entries of answers already sent are written after them (ExactlyOnce): the list includes them.
            await hub.answers.settled()
            return .audit(try await hub.deviceAdmin.auditEntries(list))
        }
        routes.on(.requestScopes) { (hub, ask: RequestScopes, context) in
            .scopeRequest(try await hub.deviceAdmin.ask(ask, deviceId: context.session.principal.deviceId))
        }
    }
}
