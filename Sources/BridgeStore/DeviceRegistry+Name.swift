import Foundation
import GRDB
import Logging

extension DeviceRegistry {
    /// Longest device name a rename accepts, in characters.
    public static let maxNameLength = 64

    /// A device name as given to a rename, trimmed; nil when it is empty, longer than ``maxNameLength`` or holds
    /// a control character (C0, DEL, C1, a line or paragraph separator, or a bidirectional override that would
    /// make a name read as another).
    public static func validName(_ name: String) -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...maxNameLength).contains(trimmed.count) else { return nil }
        let control = trimmed.unicodeScalars.contains { scalar in
            scalar.properties.generalCategory == .control || (0x2028...0x202E).contains(scalar.value)
                || (0x2066...0x2069).contains(scalar.value)
        }
        return control ? nil : trimmed
    }

    /// Gives a paired device another name (`devices rename`, `renameDevice`).
    /// - Returns: the updated record.
    /// - Throws: ``DeviceRegistryError`` `.badName`, `.deviceNotFound` or `.alreadyRevoked`.
    @discardableResult
    public func rename(id: String, to name: String) async throws -> DeviceRecord {
        guard let name = Self.validName(name) else { throw DeviceRegistryError.badName }
        let record = try await database.writeImmediate { db -> DeviceRecord in
            guard var device = try DeviceRecord.fetchOne(db, key: id) else { throw DeviceRegistryError.deviceNotFound(id) }
            guard device.revokedAt == nil else { throw DeviceRegistryError.alreadyRevoked(id) }
            device.name = name
            try device.update(db)
            return device
        }
        logger.notice("device renamed", metadata: ["bridge.device.id": "\(id)"])
        return record
    }
}
