import Foundation
import Synchronization

/// The tickets, sessions and origins of the previews, shared by the hub's requests (which issue tickets, each
/// for the origin its preview gets) and the proxy (which redeems them and checks cookies against the origin they
/// arrive on), and the connections each session has open, so that a session that ends (its device revoked, its
/// scope lost, its 12 hours over) closes them at once.
public final class PreviewAccess: Sendable {
    /// A ticket taken: the cookie value to set and the session it names.
    public typealias Redeemed = (cookie: String, session: PreviewSessionBook.Session)

    private struct State: Sendable {
        var tickets = PreviewTicketBook()
        var sessions = PreviewSessionBook()
        var origins = PreviewOrigins()
        /// How to close each open connection of each session, by session id and connection.
        var connections: [String: [ObjectIdentifier: @Sendable () -> Void]] = [:]

        mutating func closers(of sessions: [String]) -> [@Sendable () -> Void] {
            sessions.flatMap { Array((connections.removeValue(forKey: $0) ?? [:]).values) }
        }
    }

    private let state = Mutex(State())
    private let clock: @Sendable () -> Double

    /// - Parameter clock: seconds since 1970 (tests move it).
    public init(clock: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }) {
        self.clock = clock
    }

    /// One more preview origin listens on `port`.
    public func originListening(port: Int) {
        state.withLock { $0.origins.listening(port) }
    }

    /// The preview origins' ports, once they listen.
    public var originPorts: [Int] { state.withLock { $0.origins.ports } }

    /// Issues a single-use ticket for `grant`, on the origin its preview has (or is given now).
    public func issue(_ grant: PreviewGrant) throws(PreviewError) -> (ticket: String, expiresAt: Double, originPort: Int) {
        let (id, secret) = PreviewSecret.make()
        let now = clock()
        let issued = state.withLock { state -> (ticket: String, expiresAt: Double, originPort: Int)? in
            let busy = state.tickets.originPorts(now: now).union(state.sessions.originPorts(now: now))
            guard let origin = state.origins.origin(for: grant.key, now: now, busy: busy) else { return nil }
            var grant = grant
            grant.originPort = origin
            let (ticket, expiresAt) = state.tickets.issue(grant, now: now, id: id, secret: secret)
            return (ticket, expiresAt, origin)
        }
        guard let issued else {
            let count = originPorts.count
            guard count > 0 else { throw PreviewError(.unavailable, "the preview origins are not listening") }
            throw PreviewError(
                .unavailable,
                "all \(count) preview ports are held by other open previews (each lasts up to 12 hours, or until its device is revoked or the bridge restarts); serve with more --preview-origins"
            )
        }
        return issued
    }

    /// Exchanges a ticket for a session.
    public func redeem(_ ticket: String) -> Result<Redeemed, PreviewTicketBook.Refusal> {
        let (id, secret) = PreviewSecret.make()
        let now = clock()
        let (result, displaced) = state.withLock { state -> (Result<Redeemed, PreviewTicketBook.Refusal>, [@Sendable () -> Void]) in
            switch state.tickets.redeem(ticket, now: now) {
            case .failure(let refusal):
                return (.failure(refusal), [])
            case .success(let grant):
                let opened = state.sessions.open(grant, now: now, id: id, secret: secret)
                let displaced = state.closers(of: opened.displaced.map { [$0] } ?? [])
                return (.success((cookie: opened.cookie, session: opened.session)), displaced)
            }
        }
        for close in displaced { close() }
        return result
    }

    /// The live session one of these cookie values names, if it is the session of the origin on `originPort`: a
    /// cookie reaches every port of the host, and opens only its own origin's preview.
    public func session(cookies: [String], originPort: Int) -> PreviewSessionBook.Session? {
        let now = clock()
        return state.withLock { state in
            for cookie in cookies {
                if let session = state.sessions.session(cookie: cookie, now: now), session.grant.originPort == originPort {
                    return session
                }
            }
            return nil
        }
    }

    /// The browser of `session` starts its preview: whether the origin's data must be cleared first (see
    /// ``PreviewOrigins/starting(_:on:deviceId:)``).
    public func starting(_ session: PreviewSessionBook.Session) -> Bool {
        state.withLock { $0.origins.starting(session.grant.key, on: session.grant.originPort, deviceId: session.grant.deviceId) }
    }

    /// What ``track(_:session:close:)`` did.
    public enum Tracking: Sendable, Hashable {
        /// The session has ended: nothing kept; the connection must not be served.
        case ended
        /// Counted from now on.
        case added
        /// Already counted (another request on the same connection).
        case already
    }

    /// Counts a connection (`id`) as one of the session's until ``untrack(_:session:)``; `close` closes it when
    /// the session ends.
    @discardableResult
    public func track(_ id: ObjectIdentifier, session: String, close: @escaping @Sendable () -> Void) -> Tracking {
        state.withLock { state -> Tracking in
            guard state.sessions.has(session) else { return .ended }
            guard state.connections[session]?[id] == nil else { return .already }
            state.connections[session, default: [:]][id] = close
            return .added
        }
    }

    /// Forgets a connection that closed.
    public func untrack(_ id: ObjectIdentifier, session: String) {
        state.withLock { state in _ = state.connections[session]?.removeValue(forKey: id) }
    }

    /// The devices that hold a session.
    public var deviceIds: Set<String> { state.withLock { $0.sessions.deviceIds } }

    /// Ends the sessions past their time and those `matching` selects, forgets matching tickets, and closes the
    /// ended sessions' connections; returns the ended sessions' ids.
    @discardableResult
    public func end(where matching: (PreviewGrant) -> Bool = { _ in false }) -> [String] {
        let now = clock()
        let (ended, closers) = state.withLock { state -> ([String], [@Sendable () -> Void]) in
            state.tickets.forget(where: matching)
            let ended = state.sessions.end(now: now, where: matching)
            return (ended, state.closers(of: ended))
        }
        for close in closers { close() }
        return ended
    }
}
