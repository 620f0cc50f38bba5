import BridgeProtocol
import Foundation

/// The active devices by the SHA-256 of their tokens, in memory, so that a device's handshake is answered without
/// the database; with the freshness rule that lets another process's change (`codex-bridge devices revoke`, a
/// scope change: both write the SQLite file) count within ``maxAge``.
///
/// The rule: the table answers only while its last load *began* less than ``maxAge`` ago (a load sees every
/// change committed before it began) and the database's files are as they were when it began (``Stamp``: any
/// write, by any process, changes them); otherwise every lookup is ``Lookup/stale`` and the caller asks the
/// database. So a revocation committed by another process is honoured by the next lookup (its write changed the
/// files), and whatever the file stamps miss (two writes within one tick of the file clock) by every lookup
/// `maxAge` after it. Changes made through this process's ``DeviceRegistry`` are applied at once; a load that
/// began before such a change is discarded (its rows may miss it) rather than installed. A value type: the rule
/// is tested without a database.
public struct DeviceTokenTable: Sendable {
    /// One active device.
    public struct Device: Sendable, Hashable {
        public var id: String
        public var scopes: Scopes
        public var lastSeenAt: Date?
        public var lastAddress: String?

        public init(id: String, scopes: Scopes, lastSeenAt: Date? = nil, lastAddress: String? = nil) {
            self.id = id
            self.scopes = scopes
            self.lastSeenAt = lastSeenAt
            self.lastAddress = lastAddress
        }
    }

    /// What the database's files looked like (modification time, size and inode of the file and its WAL).
    public struct Stamp: Sendable, Hashable {
        let values: [Int]
        public init(_ values: [Int]) { self.values = values }
    }

    /// What the table says about a token.
    public enum Lookup: Sendable, Hashable {
        /// An active device's.
        case device(Device)
        /// No active device's (unknown, revoked or deleted).
        case unknown
        /// The table is too old to say: ask the database.
        case stale
    }

    /// How long after a load began the table is trusted; under the 2 s a revocation may take to close a
    /// connection.
    public let maxAge: Duration
    private var byHash: [Data: Device] = [:]
    private var loadedAt: ContinuousClock.Instant?
    private var loadedStamp: Stamp?
    /// Bumped by every change of this process's own: a load begun under an older generation is discarded.
    private var generation: UInt64 = 0

    public init(maxAge: Duration = .milliseconds(1500)) {
        self.maxAge = maxAge
    }

    /// The device whose token hashes to `hash`, as of a load less than ``maxAge`` before `now` that began with the
    /// database's files as `stamp` says they are now.
    public func lookup(hash: Data, now: ContinuousClock.Instant, stamp: Stamp? = nil) -> Lookup {
        guard let loadedAt, now - loadedAt < maxAge, stamp == loadedStamp else { return .stale }
        return byHash[hash].map(Lookup.device) ?? .unknown
    }

    /// Ids of the active devices the table holds.
    public var deviceIds: Set<String> { Set(byHash.values.map(\.id)) }

    /// A load begins (before its read): pass what this returns to ``loaded(_:generation:startedAt:)``.
    public func beginLoad() -> UInt64 { generation }

    /// The rows of a load begun at `startedAt` under `generation`, with the database's files as `stamp` (every
    /// active device). False, and nothing changes, when a change of this process's came in between.
    @discardableResult
    public mutating func loaded(
        _ rows: [Data: Device], generation: UInt64, startedAt: ContinuousClock.Instant, stamp: Stamp? = nil
    ) -> Bool {
        guard generation == self.generation else { return false }
        byHash = rows
        loadedAt = startedAt
        loadedStamp = stamp
        return true
    }

    /// This process wrote a device (paired, scopes changed, revoked): the table follows at once.
    public mutating func apply(hash: Data, device: Device?, id: String) {
        generation &+= 1
        byHash = byHash.filter { $0.value.id != id }
        if let device { byHash[hash] = device }
    }

    /// This process changed something the table cannot apply itself: it is stale until the next load.
    public mutating func invalidate() {
        generation &+= 1
        loadedAt = nil
    }

    /// The device of `hash` authenticated from `address` at `date`: true when `lastSeenAt`/`lastAddress` are to be
    /// written (at most every `interval`, or when the address changed); the table keeps the new values.
    public mutating func seen(hash: Data, at date: Date, address: String?, interval: TimeInterval) -> Bool {
        guard var device = byHash[hash] else { return false }
        let due = device.lastSeenAt.map { date.timeIntervalSince($0) >= interval } ?? true
        guard due || (address != nil && address != device.lastAddress) else { return false }
        device.lastSeenAt = date
        device.lastAddress = address ?? device.lastAddress
        byHash[hash] = device
        return true
    }
}
