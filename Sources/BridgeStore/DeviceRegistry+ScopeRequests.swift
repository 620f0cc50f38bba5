import BridgeProtocol
import Foundation
import GRDB
import Logging

/// A paired device's request for more scopes (`requestScopes`), waiting for the workstation (issue 37 item 1):
/// `codex-bridge devices allow ID --check CODE` grants them, as a pairing is confirmed. One per device; holds no
/// secret. The four-digit check code is shown on the phone and by `devices pending` (and serve's terminal).
public struct ScopeRequestRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "scopeRequest"

    /// The device that asks.
    public var deviceId: String
    /// What it asks for beyond what it holds.
    public var scopes: Scopes
    /// Four digits shown on the phone and on the workstation.
    public var checkCode: String
    public var createdAt: Date
    /// Nobody granted it by then: the request is dropped.
    public var expiresAt: Date
    /// When the workstation refused it (kept until `expiresAt` so the serving bridge can tell the device).
    public var deniedAt: Date?

    public init(deviceId: String, scopes: Scopes, checkCode: String, createdAt: Date, expiresAt: Date, deniedAt: Date? = nil) {
        self.deviceId = deviceId
        self.scopes = scopes
        self.checkCode = checkCode
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.deniedAt = deniedAt
    }
}

/// A request for scopes that ended without them (``DeviceRegistry/endedScopeRequests(after:through:)``).
public struct EndedScopeRequest: Sendable, Hashable {
    public var request: ScopeRequestRecord
    /// Refused on the workstation; otherwise it expired.
    public var denied: Bool

    public init(request: ScopeRequestRecord, denied: Bool) {
        self.request = request
        self.denied = denied
    }
}

extension DeviceRegistry {
    /// How long a request for scopes waits for the workstation.
    public static let scopeRequestTimeout: Duration = .seconds(600)

    /// Records that device `id` asks for `scopes`, with a fresh check code, replacing any request it had waiting.
    /// Also deletes requests that expired.
    /// - Throws: ``DeviceRegistryError`` `.deviceNotFound`, `.alreadyRevoked`, or `.noScopes` when it holds every
    ///   scope it asks for already.
    public func requestScopes(id: String, scopes: Scopes, timeout: Duration = scopeRequestTimeout) async throws -> ScopeRequestRecord {
        let at = now()
        let check = String(format: "%04d", Int.random(in: 0..<10_000))
        let request = try await database.writeImmediate { db -> ScopeRequestRecord in
            try ScopeRequestRecord.filter(Column("expiresAt") <= at).deleteAll(db)
            guard let device = try DeviceRecord.fetchOne(db, key: id) else { throw DeviceRegistryError.deviceNotFound(id) }
            guard device.revokedAt == nil else { throw DeviceRegistryError.alreadyRevoked(id) }
            let missing = scopes.subtracting(device.scopes)
            guard !missing.isEmpty else { throw DeviceRegistryError.alreadyHeld }
            let request = ScopeRequestRecord(
                deviceId: id, scopes: missing, checkCode: check, createdAt: at,
                expiresAt: at.addingTimeInterval(Double(timeout.components.seconds)))
            try request.save(db)
            return request
        }
        logger.notice("device asks for scopes", metadata: ["bridge.device.id": "\(id)", "bridge.device.scopes": "\(request.scopes)"])
        return request
    }

    /// The requests for scopes that still wait, oldest first.
    public func scopeRequests() async throws -> [ScopeRequestRecord] {
        let at = now()
        return try await database.pool.read { db in
            try ScopeRequestRecord.filter(Column("expiresAt") > at && Column("deniedAt") == nil).order(Column("createdAt")).fetchAll(db)
        }
    }

    /// The requests for scopes refused, or expired unrefused, in `(after, through]`.
    public func endedScopeRequests(after: Date, through: Date) async throws -> [EndedScopeRequest] {
        try await database.pool.read { db in
            let denied = Column("deniedAt")
            let expires = Column("expiresAt")
            return try ScopeRequestRecord.filter(
                (denied > after && denied <= through) || (denied == nil && expires > after && expires <= through)
            )
            .order(Column("createdAt")).fetchAll(db).map { EndedScopeRequest(request: $0, denied: $0.deniedAt != nil) }
        }
    }

    /// Grants (with the check code the phone shows; spaces and dashes ignored) or refuses device `id`'s waiting
    /// request for scopes. Granting adds them to the device's scopes in the same transaction; either way the
    /// request no longer waits (a refused one is marked `deniedAt`). A running server gives the device's connections the new scopes within 2 s.
    /// - Returns: the request as it was.
    /// - Throws: ``DeviceRegistryError/noScopeRequest(_:)`` when none waits; `.checkCodeMismatch` (the
    ///   request keeps waiting); `.alreadyRevoked`.
    @discardableResult
    public func decideScopeRequest(id: String, allow: Bool, check: String? = nil) async throws -> ScopeRequestRecord {
        let at = now()
        let request = try await database.writeImmediate { db -> ScopeRequestRecord in
            guard var request = try ScopeRequestRecord.fetchOne(db, key: id), request.expiresAt > at, request.deniedAt == nil else {
                throw DeviceRegistryError.noScopeRequest(id)
            }
            if allow {
                guard Self.sameCheckCode(check, request.checkCode) else {
                    throw DeviceRegistryError.checkCodeMismatch(id, of: "the request for scopes of device")
                }
                guard var device = try DeviceRecord.fetchOne(db, key: id), device.revokedAt == nil else {
                    throw DeviceRegistryError.alreadyRevoked(id)
                }
                device.scopes = device.scopes.union(request.scopes)
                try device.update(db)
                try request.delete(db)
            } else {
                request.deniedAt = at  // kept, marked, for the serving bridge to tell the device (until it expires)
                try request.update(db)
            }
            return request
        }
        if allow { tokens.invalidate() }
        logger.notice(
            allow ? "device granted scopes" : "device refused scopes",
            metadata: ["bridge.device.id": "\(id)", "bridge.device.scopes": "\(request.scopes)"])
        return request
    }
}
