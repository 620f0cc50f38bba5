import BridgeHub
import Logging
import NIOCore

/// What every connection of one server shares: settings, the credential check, the hub, the registry.
struct ConnectionEnvironment: Sendable {
    var configuration: BridgeServerConfiguration
    var credentials: CredentialCheck
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
    var preauthenticated: Grant?
}

/// What one connection knows from its start: who it is, where it runs, what it shares, what the upgrade decided.
struct ConnectionFacts {
    let id: UInt64
    let loop: any EventLoop
    let environment: ConnectionEnvironment
    let setup: ConnectionSetup
    /// Carries `bridge.connection.id` and `bridge.remote` (and, once known, `bridge.device.id` in the session's).
    let logger: Logger
}
