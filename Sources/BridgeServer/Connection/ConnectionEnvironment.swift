import BridgeHub
import Logging
import NIOCore

/// What every connection of one server shares: settings, credentials, the hub, the registry.
struct ConnectionEnvironment: Sendable {
    var configuration: BridgeServerConfiguration
    var authenticator: Authenticator
    var rateLimiter: AuthRateLimiter
    var handler: any RequestHandling
    var registry: ConnectionRegistry
    var preAuth: PreAuthLedger?
    var logger: Logger
}

/// What the upgrade decided about one connection before its WebSocket exists.
struct ConnectionSetup: Sendable {
    /// The peer's address, for logs, rate limits and `devices list`.
    var remoteAddress: String
    /// Set when the upgrade carried a valid `Authorization: Bearer` token.
    var preauthenticated: AuthenticationResult?
}
