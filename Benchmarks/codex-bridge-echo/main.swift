import BridgeProtocol
import BridgeServer
import Foundation
import Logging

/// `codex-bridge-echo [PORT]`: the bridge's own server in echo mode, for the Autobahn fuzzing client (which
/// cannot do the bridge's hello). It is `BridgeServer` with ``BridgeServerConfiguration/echoMode`` set: the same
/// upgrade path (`BridgeUpgradeChannel`), the same per-connection `WebSocketEndpoint` on NIO's frame decoder,
/// encoder and aggregator (with `EchoConnectionHandler` above it instead of the bridge protocol's `ConnectionHandler`), the same settings (no extensions, UTF-8 validated, messages capped at 1 MiB, pings
/// every 20 s, 3 s close timeout); only each message is echoed instead of going to the bridge protocol.
/// Listens on 127.0.0.1 only.
let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 9001 : 9001
var logger = Logger(label: "codex-bridge-echo")
logger.logLevel = .warning
var configuration = BridgeServerConfiguration(
    host: "127.0.0.1", port: port, server: ServerInfo(id: "echo", name: "codex-bridge-echo", version: "0"))
configuration.echoMode = true
let noSecret = FileManager.default.temporaryDirectory.appendingPathComponent("codex-bridge-echo-no-secret-\(getpid())")
let server = BridgeServer(
    configuration: configuration,
    credentials: CredentialCheck(
        sharedSecretFile: noSecret, rateLimiter: AuthRateLimiter(configuration: configuration), logger: logger),
    logger: logger)
try await server.run()
