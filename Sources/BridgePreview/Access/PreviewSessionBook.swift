/// The browser sessions on the preview origin: a redeemed ticket becomes one, named by the cookie's value. A
/// session lasts at most ``maxLifetime`` seconds, and ends earlier when its device is revoked or loses the scope
/// (the service asks every second). A value type with the rules only; ``PreviewAccess`` holds one behind a lock.
public struct PreviewSessionBook: Sendable {
    /// At most 12 hours.
    public static let maxLifetime: Double = 12 * 3600
    /// Most sessions at once; opening one more ends the oldest.
    public static let maxSessions = 128

    /// One session.
    public struct Session: Sendable, Hashable {
        /// The cookie value's id half (not secret): names the session in logs and for its connections.
        public var id: String
        public var grant: PreviewGrant
        public var expiresAt: Double
    }

    private struct Entry: Sendable {
        var secret: String
        var session: Session
    }

    private var entries: [String: Entry] = [:]
    private var order: [String] = []

    public init() {}

    public var count: Int { entries.count }

    /// The devices with a session (shared-secret sessions have none).
    public var deviceIds: Set<String> { Set(entries.values.compactMap(\.session.grant.deviceId)) }

    /// Opens a session for `grant`; returns the cookie value (`id.secret`) and the session, and the id of a
    /// session it ended to make room (its connections must be closed).
    public mutating func open(_ grant: PreviewGrant, now: Double, id: String, secret: String) -> (
        cookie: String, session: Session, displaced: String?
    ) {
        var displaced: String?
        if entries.count >= Self.maxSessions, let oldest = order.first {
            order.removeFirst()
            entries[oldest] = nil
            displaced = oldest
        }
        let session = Session(id: id, grant: grant, expiresAt: now + Self.maxLifetime)
        entries[id] = Entry(secret: secret, session: session)
        order.append(id)
        return ("\(id).\(secret)", session, displaced)
    }

    /// The live session a cookie value names; nil when it names none, or one past its time.
    public func session(cookie: String, now: Double) -> Session? {
        guard let (id, secret) = PreviewSecret.split(cookie), let entry = entries[id], PreviewSecret.equals(entry.secret, secret),
            now < entry.session.expiresAt
        else { return nil }
        return entry.session
    }

    /// Ends the sessions past their time and those whose grant `matching` returns true for; returns their ids.
    public mutating func end(now: Double, where matching: (PreviewGrant) -> Bool = { _ in false }) -> [String] {
        let ended = entries.values.filter { $0.session.expiresAt <= now || matching($0.session.grant) }.map(\.session.id)
        for id in ended { entries[id] = nil }
        order.removeAll { entries[$0] == nil }
        return ended.sorted()
    }
}

extension PreviewSessionBook {
    /// The origins of the sessions still live at `now`.
    public func originPorts(now: Double) -> Set<Int> {
        Set(entries.values.filter { now < $0.session.expiresAt }.map(\.session.grant.originPort))
    }

    /// Whether session `id` is open (not ended; its time is checked by ``session(cookie:now:)``).
    public func has(_ id: String) -> Bool { entries[id] != nil }
}
