import Logging
import NIOSSL
import Synchronization

/// Where each new connection's TLS context comes from: a fixed one, or one rebuilt from files when they change
/// (a certificate renewed by an internal CA, a reverse proxy or `tailscale cert`). A reload never drops a
/// connection: connections keep the context they started with; the next ones get the new certificate.
public final class TLSContextSource: Sendable {
    private struct State {
        var context: NIOSSLContext
        var token: String?
        var checkedAt: ContinuousClock.Instant
    }

    private let state: Mutex<State>
    private let reload: (@Sendable () throws -> NIOSSLContext)?
    private let changeToken: (@Sendable () -> String?)?
    private let logger: Logger?
    /// How often the files are looked at, at most.
    private let checkInterval: Duration

    /// Always `context`.
    public init(_ context: NIOSSLContext) {
        self.state = Mutex(State(context: context, token: nil, checkedAt: .now))
        self.reload = nil
        self.changeToken = nil
        self.logger = nil
        self.checkInterval = .seconds(1)
    }

    /// Builds the context with `load` now (throwing if it cannot), and again whenever `changeToken` (e.g. the
    /// files' modification times and sizes) changes. A reload that fails keeps the previous context and logs
    /// a warning.
    public init(
        load: @escaping @Sendable () throws -> NIOSSLContext, changeToken: @escaping @Sendable () -> String?, logger: Logger,
        checkInterval: Duration = .seconds(1)
    ) throws {
        let token = changeToken()
        self.state = Mutex(State(context: try load(), token: token, checkedAt: .now))
        self.reload = load
        self.changeToken = changeToken
        self.logger = logger
        self.checkInterval = checkInterval
    }

    /// The context for a new connection.
    public func current() -> NIOSSLContext {
        guard let reload, let changeToken else { return state.withLock { $0.context } }
        let now = ContinuousClock.now
        let (context, stale) = state.withLock { state -> (NIOSSLContext, String?) in
            guard now - state.checkedAt >= checkInterval else { return (state.context, nil) }
            state.checkedAt = now
            let token = changeToken()
            guard token != state.token else { return (state.context, nil) }
            state.token = token
            return (state.context, token)
        }
        guard stale != nil else { return context }
        do {
            let fresh = try reload()
            state.withLock { $0.context = fresh }
            logger?.notice("TLS certificate reloaded")
            return fresh
        } catch {
            logger?.warning(
                "TLS certificate files changed but cannot be loaded; keeping the previous certificate", metadata: ["error": "\(error)"])
            return context
        }
    }
}
