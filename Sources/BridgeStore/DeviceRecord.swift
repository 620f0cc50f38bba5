import BridgeProtocol
import Foundation
import GRDB

/// A paired device as the database holds it. Never contains the device token, only its hash.
public struct DeviceRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "device"

    /// The device id (`devices revoke ID`): 12 lower-case base32 characters.
    public var id: String
    /// The name the device gave when it paired (`hello.device.name`), or "unnamed device".
    public var name: String
    /// The platform it gave (`ios`, `android`, ...), if any.
    public var platform: String?
    /// SHA-256 of the device token.
    public var tokenHash: Data
    /// When the device redeemed its pairing code.
    public var pairedAt: Date
    /// When it last authenticated (updated at most every ``DeviceRegistry/lastSeenWriteInterval``).
    public var lastSeenAt: Date?
    /// The peer address of its last authentication.
    public var lastAddress: String?
    /// When it was revoked; a revoked device's token no longer authenticates.
    public var revokedAt: Date?
    /// The highest journal `seq` the device acknowledged.
    public var ackedSeq: Int64
    /// What the device may do.
    public var scopes: Scopes = .standard

    /// Whether the device has been revoked.
    public var isRevoked: Bool { revokedAt != nil }
}

/// Scopes are stored as their comma-separated names (`observe,operate,approve`); names this version does not
/// know are skipped when read.
extension Scopes: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { description.databaseValue }
    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Scopes? {
        String.fromDatabaseValue(dbValue).map(Scopes.init(stored:))
    }
}

/// The result of redeeming a pairing code: the new device's id and its long-lived secret. The token is
/// returned exactly once (in `helloAck`) and never stored in clear.
public struct PairedDevice: Sendable, Hashable, CustomStringConvertible {
    /// The new device's id.
    public let deviceId: String
    /// The device's secret for every later connection (32 random bytes, base64url).
    public let deviceToken: String
    /// The stored record.
    public let record: DeviceRecord

    /// Never the token: safe to interpolate into a log line.
    public var description: String { "PairedDevice(deviceId: \(deviceId))" }
}

/// A pairing code as the database holds it (hash only).
struct PairingCodeRecord: Sendable, Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pairingCode"

    var codeHash: Data
    var createdAt: Date
    var expiresAt: Date
    var usedAt: Date?
    var usedByDevice: String?
    /// What the device that redeems it may do (nil: ``Scopes/standard``).
    var scopes: Scopes?
}
