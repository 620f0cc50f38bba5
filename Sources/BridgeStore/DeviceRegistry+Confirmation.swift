import BridgeProtocol
import Foundation
import GRDB
import Logging

/// A pairing waiting for the workstation's confirmation (`serve --confirm-pairing`): the code is spent, the
/// device is not stored yet. Holds no secret: the device token is made when the pairing completes.
public struct PairingRequestRecord: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "pairingRequest"

    /// The id the device will have (`devices allow ID`).
    public var deviceId: String
    public var name: String
    public var platform: String?
    /// The phone's address.
    public var address: String?
    /// Four digits shown on the phone and on the workstation.
    public var checkCode: String
    /// What the device will be allowed to do (the code's scopes).
    public var scopes: Scopes
    public var createdAt: Date
    /// Nobody confirmed by then: the pairing is dropped.
    public var expiresAt: Date
    /// `allow` or `deny` once the workstation decided; nil while waiting.
    public var decision: String?
}

/// What became of a pairing request, as the server waiting on it sees it.
public enum PairingDecision: Sendable, Hashable {
    case waiting
    case allowed
    case denied
    /// No such request any more (expired and deleted, or dropped).
    case gone
}

extension DeviceRegistry {
    /// How long a pairing waits for the workstation at most.
    public static let confirmationTimeout: Duration = .seconds(300)

    /// Spends `code` (exactly as ``redeem(code:device:address:)`` would) and records a pairing that waits for the
    /// workstation's confirmation instead of registering the device. Also deletes requests that expired.
    /// - Throws: ``DeviceRegistryError`` as `redeem` does.
    public func requestPairing(code: String, device: DeviceInfo, address: String?, timeout: Duration = confirmationTimeout) async throws
        -> PairingRequestRecord
    {
        let at = now()
        let id = Self.newDeviceId()
        let name = Self.clean(device.name, limit: 100) ?? "unnamed device"
        let platform = Self.clean(device.platform, limit: 40)
        let expires = at.addingTimeInterval(Self.seconds(timeout))
        let check = String(format: "%04d", Int.random(in: 0..<10_000))
        let request = try await useCode(code, at: at, deviceId: id) { db, scopes in
            try PairingRequestRecord.filter(Column("expiresAt") <= at).deleteAll(db)
            let request = PairingRequestRecord(
                deviceId: id, name: name, platform: platform, address: address, checkCode: check, scopes: scopes, createdAt: at,
                expiresAt: expires, decision: nil)
            try request.insert(db)
            return request
        }
        logger.notice(
            "pairing waits for confirmation",
            metadata: ["bridge.device.id": "\(id)", "bridge.device.name": "\(name)", "bridge.remote": "\(address ?? "")"])
        return request
    }

    /// The pairings waiting for a decision (not expired), oldest first.
    public func pairingRequests() async throws -> [PairingRequestRecord] {
        let at = now()
        return try await database.pool.read { db in
            try PairingRequestRecord.filter(Column("decision") == nil && Column("expiresAt") > at).order(Column("createdAt")).fetchAll(db)
        }
    }

    /// Records the workstation's decision on a waiting pairing; the server holding the phone's socket completes
    /// or drops it within a second. Allowing takes the check code the phone shows (`check`: digits, spaces and
    /// dashes ignored), so the person allows the phone in their hand; denying needs none.
    /// - Throws: ``DeviceRegistryError/noPairingRequest(_:)`` when none waits under `id`;
    ///   ``DeviceRegistryError/checkCodeMismatch(_:)`` when allowing with a check code that is not the request's
    ///   (or none): the request keeps waiting.
    @discardableResult
    public func decidePairing(id: String, allow: Bool, check: String? = nil) async throws -> PairingRequestRecord {
        let at = now()
        return try await database.writeImmediate { db -> PairingRequestRecord in
            guard var request = try PairingRequestRecord.fetchOne(db, key: id), request.decision == nil, request.expiresAt > at else {
                throw DeviceRegistryError.noPairingRequest(id)
            }
            if allow, !Self.sameCheckCode(check, request.checkCode) { throw DeviceRegistryError.checkCodeMismatch(id) }
            request.decision = allow ? "allow" : "deny"
            try request.update(db)
            return request
        }
    }

    /// Whether `given` (as a person types it: spaces and dashes ignored) is `expected`, compared in constant time.
    static func sameCheckCode(_ given: String?, _ expected: String) -> Bool {
        guard let given else { return false }
        let typed = Array(given.filter { !$0.isWhitespace && $0 != "-" }.utf8)
        let wanted = Array(expected.utf8)
        guard typed.count == wanted.count else { return false }
        return zip(typed, wanted).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Where the pairing `id` stands.
    public func pairingDecision(id: String) async throws -> PairingDecision {
        let request = try await database.pool.read { db in try PairingRequestRecord.fetchOne(db, key: id) }
        guard let request else { return .gone }
        switch request.decision {
        case "allow": return .allowed
        case "deny": return .denied
        default: return .waiting
        }
    }

    /// Registers the device of an allowed pairing and deletes the request, in one transaction; the token is
    /// returned once, as by ``redeem(code:device:address:)``.
    /// - Throws: ``DeviceRegistryError/noPairingRequest(_:)`` unless the request exists and was allowed.
    public func completePairing(id: String) async throws -> PairedDevice {
        let token = SharedSecret.generate()
        let tokenHash = Self.hash(token: token)
        let at = now()
        let record = try await database.writeImmediate { db -> DeviceRecord in
            guard let request = try PairingRequestRecord.fetchOne(db, key: id), request.decision == "allow" else {
                throw DeviceRegistryError.noPairingRequest(id)
            }
            let record = DeviceRecord(
                id: request.deviceId, name: request.name, platform: request.platform, tokenHash: tokenHash, pairedAt: at, lastSeenAt: at,
                lastAddress: request.address, revokedAt: nil, ackedSeq: 0, scopes: request.scopes)
            try record.insert(db)
            try request.delete(db)
            return record
        }
        tokens.apply(record)
        logger.notice(
            "device paired (confirmed on the workstation)",
            metadata: [
                "bridge.device.id": "\(record.id)", "bridge.device.name": "\(record.name)", "bridge.device.scopes": "\(record.scopes)",
            ])
        return PairedDevice(deviceId: record.id, deviceToken: token, record: record)
    }

    /// Forgets a pairing request (denied, timed out, or its phone went away): nothing of it stays.
    public func dropPairingRequest(id: String) async throws {
        _ = try await database.pool.write { db in try PairingRequestRecord.deleteOne(db, key: id) }
    }

    /// Forgets every pairing request: at startup no phone waits on this server.
    public func dropAllPairingRequests() async throws {
        _ = try await database.pool.write { db in try PairingRequestRecord.deleteAll(db) }
    }
}
