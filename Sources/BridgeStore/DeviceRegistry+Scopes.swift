import BridgeProtocol
import Foundation
import GRDB
import Logging

extension DeviceRegistry {
    /// Replaces a device's scopes. A running server gives its open connections the new scopes within 2 s
    /// (it reads them with ``scopes(among:)`` every second).
    /// - Returns: the updated record.
    /// - Throws: ``DeviceRegistryError`` `.deviceNotFound` or `.alreadyRevoked`, `.noScopes` for an empty set.
    @discardableResult
    public func setScopes(id: String, scopes: Scopes) async throws -> DeviceRecord {
        guard !scopes.isEmpty else { throw DeviceRegistryError.noScopes }
        let record = try await database.writeImmediate { db -> DeviceRecord in
            guard var device = try DeviceRecord.fetchOne(db, key: id) else { throw DeviceRegistryError.deviceNotFound(id) }
            guard device.revokedAt == nil else { throw DeviceRegistryError.alreadyRevoked(id) }
            device.scopes = scopes
            try device.update(db)
            return device
        }
        tokens.apply(record)
        logger.notice("device scopes changed", metadata: ["bridge.device.id": "\(id)", "bridge.device.scopes": "\(scopes)"])
        return record
    }

    /// The scopes of each of `ids` that exists and is not revoked; one read (a server polls it every second
    /// for the devices it has connections for).
    public func scopes(among ids: some Collection<String>) async throws -> [String: Scopes] {
        let wanted = Array(Set(ids))
        guard !wanted.isEmpty else { return [:] }
        return try await database.pool.read { db in
            var result: [String: Scopes] = [:]
            let rows = try Row.fetchAll(
                db, DeviceRecord.select(Column("id"), Column("scopes")).filter(wanted.contains(Column("id")) && Column("revokedAt") == nil))
            for row in rows {
                let id: String = row["id"]
                result[id] = Scopes(stored: row["scopes"] ?? "")
            }
            return result
        }
    }
}
