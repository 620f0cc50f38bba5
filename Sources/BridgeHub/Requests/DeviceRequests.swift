import BridgeProtocol
import BridgeStore
import Foundation

/// The `admin` requests — list, scope, rename and revoke devices, mint pairing codes, read the audit log: what
/// `codex-bridge devices`, `pair` and `audit` do on the workstation, for a phone trusted with it — and
/// `requestScopes`, a device asking the workstation for more.
struct DeviceRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.listDevices) { (hub, _: ListDevices, context) in
            let records = try await hub.storage.devices.list()
            let recent = try await hub.storage.audit.recent(of: records.map(\.id), limit: ThreadHub.recentActionsPerDevice)
            return .devices(DeviceList(devices: records.map { hub.summary($0, for: context.session, recent: recent[$0.id]) }))
        }
        routes.on(.setDeviceScopes) { (hub, set: SetDeviceScopes, context) in
            let scopes = try ThreadHub.scopes(set.scopes)
            let devices = hub.storage.devices
            let record = try await ThreadHub.registry { try await devices.setScopes(id: set.deviceId, scopes: scopes) }
            await hub.refreshScopes()
            return .device(DeviceChanged(device: hub.summary(record, for: context.session)))
        }
        routes.on(.renameDevice) { (hub, rename: RenameDevice, context) in
            let devices = hub.storage.devices
            let record = try await ThreadHub.registry { try await devices.rename(id: rename.deviceId, to: rename.name) }
            return .device(DeviceChanged(device: hub.summary(record, for: context.session)))
        }
        routes.on(.revokeDevice) { (hub, revoke: RevokeDevice, context) in
            // Its connections are closed by the revocation watcher within 2 s (this one's too, when it revokes itself).
            let devices = hub.storage.devices
            let record = try await ThreadHub.registry { try await devices.revoke(id: revoke.deviceId) }
            return .device(DeviceChanged(device: hub.summary(record, for: context.session)))
        }
        routes.on(.pairDevice) { (hub, pair: PairDevice, _) in
            let scopes = try pair.scopes.map(ThreadHub.scopes) ?? .standard
            let ttl = pair.ttl ?? 600
            guard (60...86400).contains(ttl) else { throw HubError(.badRequest, "ttl must be 60 to 86400 seconds") }
            let code = try await hub.storage.devices.mintPairingCode(ttl: .milliseconds(Int64(ttl * 1000)), scopes: scopes)
            return .pairingCode(PairingCodeIssued(code: code.code, expiresAt: code.expiresAt.timeIntervalSince1970, scopes: scopes))
        }
        routes.on(.listAudit) { (hub, list: ListAudit, _) in
            let limit = list.limit ?? 100
            guard (1...1000).contains(limit) else { throw HubError(.badRequest, "limit must be 1 to 1000") }
            return .audit(AuditList(entries: try await hub.storage.audit.entries(deviceId: list.deviceId, since: list.since, limit: limit)))
        }
        routes.on(.requestScopes) { (hub, ask: RequestScopes, context) in
            .scopeRequest(try await ScopeAsking(registry: hub.storage.devices).ask(ask, deviceId: context.session.principal.deviceId))
        }
    }
}
