import BridgeProtocol
import Crypto
import Foundation
import GRDB
import Logging

/// Paired devices and one-time pairing codes, in the ``BridgeDatabase``.
///
/// Secrets are stored only as SHA-256 hashes. A device token is 256 random bits, so its hash can be looked
/// up directly through the `UNIQUE` index on `device.tokenHash`: that lookup is not constant time, but what
/// its timing could reveal is a prefix of the *hash* of a random token, which does not help guess a token
/// (finding a preimage of a hash prefix for a 256-bit random secret is as hard as guessing it). Pairing codes
/// are looked up the same way by hash.
///
/// Every method is safe to call from several processes at once (`serve` and CLI commands): state changes
/// are single SQL transactions.
public struct DeviceRegistry: Sendable {
    /// `authenticate` writes `lastSeenAt` at most this often per device (and whenever the address changes),
    /// so a reconnect storm does not turn into a write storm.
    public static let lastSeenWriteInterval: TimeInterval = 30
    /// Wrong codes tried (from any address) while a code is live before that code is burnt: a guesser gets
    /// this many tries against each live code in all, whatever the number of addresses it uses.
    public static let maxFailedAttemptsPerCode = 20
    /// Used or expired codes are deleted this long after they expire.
    static let codeRetention: TimeInterval = 24 * 3600

    /// The database the registry lives in (`serve` keeps the event journal in the same one).
    public let database: BridgeDatabase
    let now: @Sendable () -> Date
    let logger: Logger
    /// The active devices' tokens in memory (``cachedDevice(deviceToken:address:)``): the database's, shared by
    /// every registry on it; each applies its own writes.
    public var tokens: DeviceTokens { database.deviceTokens }

    /// - Parameters:
    ///   - now: the clock; tests inject one to expire codes.
    ///   - logger: receives device ids and counts, never a code or token.
    public init(database: BridgeDatabase, now: @escaping @Sendable () -> Date = Date.init, logger: Logger) {
        self.database = database
        self.now = now
        self.logger = logger
    }

    // MARK: Pairing codes

    /// Mints a one-time pairing code valid for `ttl`; the device that redeems it gets `scopes`. Also deletes codes
    /// that expired a day ago or more.
    public func mintPairingCode(ttl: Duration, scopes: Scopes = .standard) async throws -> PairingCode {
        let created = now()
        let expires = created.addingTimeInterval(Self.seconds(ttl))
        let code = PairingCode.generate()
        let record = PairingCodeRecord(
            codeHash: PairingCode.hash(code), createdAt: created, expiresAt: expires, scopes: scopes == .standard ? nil : scopes)
        let cutoff = created.addingTimeInterval(-Self.codeRetention)
        try await database.pool.write { db in
            try PairingCodeRecord.filter(Column("expiresAt") < cutoff).deleteAll(db)
            try record.insert(db)
        }
        logger.info("pairing code minted", metadata: ["bridge.pairing.expiresAt": "\(expires)", "bridge.device.scopes": "\(scopes)"])
        return PairingCode(code: code, expiresAt: expires)
    }

    /// Redeems a pairing code and registers the device, in one `BEGIN IMMEDIATE` transaction: of any number of
    /// concurrent redeems of one code (in any process) exactly one succeeds. The device gets the scopes the code
    /// was minted with.
    ///
    /// - Parameters:
    ///   - code: as the client sent it; ``PairingCode/normalize(_:)`` is applied.
    ///   - address: the client's peer address, recorded as `lastAddress`.
    /// - Throws: ``DeviceRegistryError`` `.unknownCode`, `.codeAlreadyUsed` or `.codeExpired`.
    public func redeem(code: String, device: DeviceInfo, address: String?) async throws -> PairedDevice {
        let token = SharedSecret.generate()
        let at = now()
        let id = Self.newDeviceId()
        let name = Self.clean(device.name, limit: 100) ?? "unnamed device"
        let platform = Self.clean(device.platform, limit: 40)
        let tokenHash = Self.hash(token: token)
        let record = try await useCode(code, at: at, deviceId: id) { db, scopes in
            let record = DeviceRecord(
                id: id, name: name, platform: platform, tokenHash: tokenHash, pairedAt: at, lastSeenAt: at, lastAddress: address,
                revokedAt: nil, ackedSeq: 0, scopes: scopes)
            try record.insert(db)
            return record
        }
        tokens.apply(record)
        logger.notice(
            "device paired",
            metadata: [
                "bridge.device.id": "\(record.id)", "bridge.device.name": "\(record.name)", "bridge.device.scopes": "\(record.scopes)",
            ])
        return PairedDevice(deviceId: record.id, deviceToken: token, record: record)
    }

    /// Marks `code` used by `deviceId` and runs `then` with the code's scopes, in one `BEGIN IMMEDIATE`
    /// transaction. A wrong code counts against every live code (the guess could have been aimed at any of them).
    func useCode<T: Sendable>(
        _ code: String, at: Date, deviceId: String, then: @escaping @Sendable (Database, Scopes) throws -> T
    ) async throws -> T {
        guard let canonical = PairingCode.normalize(code) else { throw DeviceRegistryError.unknownCode }
        let codeHash = PairingCode.hash(canonical)
        let used = try await database.writeImmediate { db -> T? in
            try db.execute(
                sql: """
                    UPDATE pairingCode SET usedAt = ?, usedByDevice = ?
                    WHERE codeHash = ? AND usedAt IS NULL AND expiresAt > ? AND failedAttempts < ?
                    """,
                arguments: [at, deviceId, codeHash, at, Self.maxFailedAttemptsPerCode])
            guard db.changesCount == 1 else {
                guard let existing = try PairingCodeRecord.fetchOne(db, key: codeHash) else {
                    return nil
                }
                if existing.usedAt != nil { throw DeviceRegistryError.codeAlreadyUsed }
                if existing.expiresAt <= at { throw DeviceRegistryError.codeExpired }
                throw DeviceRegistryError.codeBurnt
            }
            let scopes = try PairingCodeRecord.fetchOne(db, key: codeHash)?.scopes ?? .standard
            return try then(db, scopes)
        }
        guard let used else {
            try await database.pool.write { db in
                try db.execute(
                    sql: "UPDATE pairingCode SET failedAttempts = failedAttempts + 1 WHERE usedAt IS NULL AND expiresAt > ?",
                    arguments: [at])
            }
            throw DeviceRegistryError.unknownCode
        }
        return used
    }

    // MARK: Devices

    /// The device whose token this is, unless revoked; nil otherwise. Records `lastSeenAt`/`lastAddress`
    /// (at most every ``lastSeenWriteInterval`` unless the address changed).
    public func authenticate(deviceToken: String, address: String?) async throws -> DeviceRecord? {
        let tokenHash = Self.hash(token: deviceToken)
        let found = try await database.pool.read { db in
            try DeviceRecord.filter(Column("tokenHash") == tokenHash).fetchOne(db)
        }
        guard var device = found, !device.isRevoked else { return nil }
        let at = now()
        let stale = device.lastSeenAt.map { at.timeIntervalSince($0) >= Self.lastSeenWriteInterval } ?? true
        if stale || (address != nil && address != device.lastAddress) {
            device.lastSeenAt = at
            device.lastAddress = address ?? device.lastAddress
            let (id, seen, addr) = (device.id, at, device.lastAddress)
            try await database.pool.write { db in
                try db.execute(
                    sql: "UPDATE device SET lastSeenAt = ?, lastAddress = ? WHERE id = ? AND revokedAt IS NULL",
                    arguments: [seen, addr, id])
            }
        }
        return device
    }

    /// Every device, revoked ones included, oldest pairing first.
    public func list() async throws -> [DeviceRecord] {
        try await database.pool.read { db in
            try DeviceRecord.order(Column("pairedAt"), Column("id")).fetchAll(db)
        }
    }

    /// One device by id, or nil.
    public func device(id: String) async throws -> DeviceRecord? {
        try await database.pool.read { db in try DeviceRecord.fetchOne(db, key: id) }
    }

    /// Revokes a device: its token stops authenticating at once, and servers polling ``isRevoked(id:)`` /
    /// ``revokedDeviceIds(among:)`` close its connections. Other devices are untouched.
    /// - Returns: the revoked record.
    /// - Throws: ``DeviceRegistryError`` `.deviceNotFound` or `.alreadyRevoked`.
    @discardableResult
    public func revoke(id: String) async throws -> DeviceRecord {
        let at = now()
        let record = try await database.writeImmediate { db -> DeviceRecord in
            guard var device = try DeviceRecord.fetchOne(db, key: id) else {
                throw DeviceRegistryError.deviceNotFound(id)
            }
            guard device.revokedAt == nil else { throw DeviceRegistryError.alreadyRevoked(id) }
            device.revokedAt = at
            try device.update(db)
            return device
        }
        tokens.apply(record)
        logger.notice("device revoked", metadata: ["bridge.device.id": "\(id)"])
        return record
    }

    /// Whether the device is revoked. An unknown id counts as revoked (a deleted device must not stay
    /// connected).
    public func isRevoked(id: String) async throws -> Bool {
        try await revokedDeviceIds(among: [id]).contains(id)
    }

    /// Of `ids` (e.g. the devices with live connections), those that are revoked or no longer exist. One
    /// cheap read: a server can call it every second to close connections revoked by another process.
    public func revokedDeviceIds(among ids: some Collection<String>) async throws -> Set<String> {
        let wanted = Set(ids)
        guard !wanted.isEmpty else { return [] }
        let active = try await database.pool.read { db in
            try String.fetchSet(
                db,
                DeviceRecord.select(Column("id"))
                    .filter(wanted.contains(Column("id")) && Column("revokedAt") == nil))
        }
        return wanted.subtracting(active)
    }

    /// Records that the device acknowledged journal events up to `seq` (never moves backwards).
    public func recordAck(deviceId: String, seq: Int64) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: "UPDATE device SET ackedSeq = max(ackedSeq, ?) WHERE id = ?",
                arguments: [seq, deviceId])
        }
    }

    // MARK: Helpers

    static func hash(token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }

    /// 12 characters of lower-case Crockford base32 (60 bits): short enough to type in `devices revoke`.
    static func newDeviceId() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<12).map { _ in PairingCode.alphabet.randomElement(using: &generator)! }).lowercased()
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Trims a client-supplied label, drops control characters and caps its length; nil when empty.
    static func clean(_ value: String?, limit: Int) -> String? {
        guard let value else { return nil }
        let scalars = value.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }
        let trimmed = String(String.UnicodeScalarView(scalars)).trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : String(trimmed.prefix(limit))
    }
}
