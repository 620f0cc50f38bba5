/// The tickets `openPreview` issued and not yet used: each is good once, for ``lifetime`` seconds. A value type
/// with the rules only (time is given, secrets are given); ``PreviewAccess`` holds one behind a lock.
public struct PreviewTicketBook: Sendable {
    /// Seconds a ticket stays good.
    public static let lifetime: Double = 120
    /// Most tickets outstanding; issuing one more forgets the oldest.
    public static let maxOutstanding = 256

    /// Why a ticket is not taken.
    public enum Refusal: Error, Sendable, Hashable {
        /// Never issued, already used, or forgotten.
        case unknown
        /// Issued, but its two minutes are over.
        case expired
    }

    struct Entry: Sendable {
        var secret: String
        var grant: PreviewGrant
        var expiresAt: Double
    }

    private var entries: [String: Entry] = [:]
    private var order: [String] = []

    public init() {}

    /// How many tickets are outstanding.
    public var count: Int { entries.count }

    /// Issues a ticket for `grant`: `id.secret`, good until the returned time (seconds since 1970).
    public mutating func issue(_ grant: PreviewGrant, now: Double, id: String, secret: String) -> (ticket: String, expiresAt: Double) {
        forgetExpired(now: now)
        while entries.count >= Self.maxOutstanding, let oldest = order.first {
            order.removeFirst()
            entries[oldest] = nil
        }
        let expiresAt = now + Self.lifetime
        entries[id] = Entry(secret: secret, grant: grant, expiresAt: expiresAt)
        order.append(id)
        return ("\(id).\(secret)", expiresAt)
    }

    /// Takes a ticket: its grant, once. A ticket whose secret does not match is refused and left in place (its
    /// holder may still use it); a matching one is used up whether it is still good or not.
    public mutating func redeem(_ ticket: String, now: Double) -> Result<PreviewGrant, Refusal> {
        guard let (id, secret) = PreviewSecret.split(ticket), let entry = entries[id], PreviewSecret.equals(entry.secret, secret) else {
            return .failure(.unknown)
        }
        entries[id] = nil
        order.removeAll { $0 == id }
        guard now < entry.expiresAt else { return .failure(.expired) }
        return .success(entry.grant)
    }

    /// The origins of the tickets still good at `now`.
    public func originPorts(now: Double) -> Set<Int> {
        Set(entries.values.filter { now < $0.expiresAt }.map(\.grant.originPort))
    }

    /// Forgets the tickets of grants `matching` returns true for (a revoked device's).
    public mutating func forget(where matching: (PreviewGrant) -> Bool) {
        for (id, entry) in entries where matching(entry.grant) { entries[id] = nil }
        order.removeAll { entries[$0] == nil }
    }

    private mutating func forgetExpired(now: Double) {
        for (id, entry) in entries where entry.expiresAt <= now { entries[id] = nil }
        order.removeAll { entries[$0] == nil }
    }
}
