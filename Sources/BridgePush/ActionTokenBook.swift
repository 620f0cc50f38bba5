import BridgeStore
import Crypto
import Foundation

/// Single-use action tokens for answering an approval from a notification. Only SHA-256 hashes are kept (in
/// memory); each token is bound to one approval and one device and lives until it is used, the approval
/// resolves, or its lifetime passes. A value type: the caller serialises access.
public struct ActionTokenBook: Sendable {
    public struct Binding: Sendable, Hashable {
        public var approvalId: String
        public var owner: String
    }

    struct Entry {
        var binding: Binding
        var expires: ContinuousClock.Instant
    }

    public let lifetime: Duration
    private var entries: [Data: Entry] = [:]

    /// Most live tokens; the oldest go first past it.
    public static let capacity = 10_000

    public init(lifetime: Duration = .seconds(15 * 60)) {
        self.lifetime = lifetime
    }

    /// A new token for `owner` to answer `approvalId`.
    public mutating func mint(approvalId: String, owner: String, now: ContinuousClock.Instant = .now) -> String {
        purge(now: now)
        if entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.expires < $1.value.expires })?.key {
            entries[oldest] = nil
        }
        let token = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
        entries[Self.hash(token)] = Entry(binding: Binding(approvalId: approvalId, owner: owner), expires: now + lifetime)
        return token
    }

    /// Uses `token`: its binding when it is live (and then it is gone), nil otherwise. A token presented with
    /// a known owner (`presenter`) that is not its own is refused and stays usable by its owner.
    public mutating func redeem(_ token: String, presenter: String? = nil, now: ContinuousClock.Instant = .now) -> Binding? {
        purge(now: now)
        guard token.utf8.count <= 256 else { return nil }
        let key = Self.hash(token)
        guard let entry = entries[key] else { return nil }
        if let presenter, presenter != entry.binding.owner { return nil }
        entries[key] = nil
        return entry.binding
    }

    /// The approval was answered or cancelled: its tokens die.
    public mutating func approvalResolved(_ approvalId: String) {
        entries = entries.filter { $0.value.binding.approvalId != approvalId }
    }

    /// Live tokens.
    public var count: Int { entries.count }

    mutating func purge(now: ContinuousClock.Instant) {
        entries = entries.filter { $0.value.expires > now }
    }

    static func hash(_ token: String) -> Data { Data(SHA256.hash(data: Data(token.utf8))) }
}
