import BridgeProtocol
import BridgeStore
import Foundation

/// The `admin` requests' work — list, scope, rename and revoke devices, mint pairing codes, read the audit log —
/// what `codex-bridge devices`, `pair` and `audit` do on the workstation, for a phone trusted with it. Beside the hub:
/// it holds the device registry and the audit log; what only the hub knows (which devices are connected, telling
/// open sessions their new scopes) its routes ask the hub for.
struct DeviceAdmin: Sendable {
    let devices: DeviceRegistry
    let audit: AuditLog

    /// Actions of each device a `devices` answer carries.
    static let recentActionsPerDevice = 5

    /// Every device with its recent actions.
    func list() async throws -> [(record: DeviceRecord, recent: [AuditEntry]?)] {
        let records = try await devices.list()
        let recent = try await audit.recent(of: records.map(\.id), limit: Self.recentActionsPerDevice)
        return records.map { ($0, recent[$0.id]) }
    }

    func setScopes(_ set: SetDeviceScopes) async throws -> DeviceRecord {
        let scopes = try Self.scopes(set.scopes)
        return try await Self.registry { try await devices.setScopes(id: set.deviceId, scopes: scopes) }
    }

    func rename(_ rename: RenameDevice) async throws -> DeviceRecord {
        try await Self.registry { try await devices.rename(id: rename.deviceId, to: rename.name) }
    }

    /// Its connections are closed by the revocation watcher within 2 s (the asking one's too, when it revokes itself).
    func revoke(_ revoke: RevokeDevice) async throws -> DeviceRecord {
        try await Self.registry { try await devices.revoke(id: revoke.deviceId) }
    }

    func pair(_ pair: PairDevice) async throws -> PairingCodeIssued {
        let scopes = try pair.scopes.map(Self.scopes) ?? .standard
        let ttl = pair.ttl ?? 600
        guard (60...86400).contains(ttl) else { throw HubError(.badRequest, "ttl must be 60 to 86400 seconds") }
        let code = try await devices.mintPairingCode(ttl: .milliseconds(Int64(ttl * 1000)), scopes: scopes)
        return PairingCodeIssued(code: code.code, expiresAt: code.expiresAt.timeIntervalSince1970, scopes: scopes)
    }

    func auditEntries(_ list: ListAudit) async throws -> AuditList {
        let limit = list.limit ?? 100
        guard (1...1000).contains(limit) else { throw HubError(.badRequest, "limit must be 1 to 1000") }
        return AuditList(entries: try await audit.entries(deviceId: list.deviceId, since: list.since, limit: limit))
    }

    /// `requestScopes` (``ScopeAsking``).
    func ask(_ ask: RequestScopes, deviceId: String?) async throws -> ScopeRequestIssued {
        try await ScopeAsking(registry: devices).ask(ask, deviceId: deviceId)
    }

    /// A device as an admin sees it: connected when it is one of `connected` (the devices with a session open), current
    /// when it is `session`'s.
    static func summary(
        _ record: DeviceRecord, of connected: Set<String>, for session: ClientSession, recent: [AuditEntry]? = nil
    ) -> DeviceSummary {
        DeviceSummary(
            id: record.id, name: record.name, platform: record.platform, pairedAt: record.pairedAt.timeIntervalSince1970,
            lastSeenAt: record.lastSeenAt?.timeIntervalSince1970, lastAddress: record.lastAddress, scopes: record.scopes,
            revoked: record.isRevoked, connected: connected.contains(record.id), current: session.principal.deviceId == record.id,
            recentActions: recent)
    }

    static func scopes(_ names: [String]) throws -> Scopes {
        do {
            return try Scopes(parsing: names.joined(separator: ","))
        } catch {
            throw HubError(.badRequest, error.message)
        }
    }

    /// Runs a registry change, answering its refusals with wire codes.
    static func registry<T>(_ change: () async throws -> T) async throws -> T {
        do {
            return try await change()
        } catch let error as DeviceRegistryError {
            switch error.code {
            case .deviceNotFound: throw HubError(.notFound, error.message)
            case .alreadyRevoked: throw HubError(.conflict, error.message)
            default: throw HubError(.badRequest, error.message)
            }
        }
    }
}
