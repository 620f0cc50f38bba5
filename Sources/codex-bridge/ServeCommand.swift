import ArgumentParser
import BridgeProtocol
import BridgeServer
import BridgeStore
import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

/// `codex-bridge serve`: the bridge itself.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the bridge: WebSocket clients, Codex, mDNS, pairing."
    )

    @OptionGroup var state: StateOptions

    @Option(help: ArgumentHelp("Address and port to listen on; port 0 picks a free one.", valueName: "host:port"))
    var listen = ListenAddress(host: "0.0.0.0", port: 9099)

    @Option(help: ArgumentHelp("Seconds a client has to send hello.", valueName: "seconds"))
    var helloTimeout: Double = 10

    @Option(help: ArgumentHelp("Largest accepted message in bytes; larger ones close with 1009.", valueName: "bytes"))
    var maxMessageBytes: Int = 1 << 20

    @Option(help: ArgumentHelp("Seconds between WebSocket pings; 0 disables them.", valueName: "seconds"))
    var pingInterval: Double = 20

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
    var logLevel: String = "info"

    @Flag(help: "Do not print the pairing QR code at startup.")
    var noQr = false

    @Flag(help: "Do not advertise the bridge over mDNS.")
    var noMdns = false

    @Option(help: ArgumentHelp("Instance name advertised over mDNS (default: the host name).", valueName: "name"))
    var mdnsName: String?

    func validate() throws {
        guard helloTimeout > 0 else { throw ValidationError("--hello-timeout must be positive") }
        guard maxMessageBytes >= 1024 else { throw ValidationError("--max-message-bytes must be at least 1024") }
        guard pingInterval >= 0 else { throw ValidationError("--ping-interval must not be negative") }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "codex-bridge")
        let paths = state.paths
        do {
            try paths.prepare()
            _ = try SharedSecret(paths: paths).loadOrCreate()
        } catch {
            throw CleanExit.message("error: cannot prepare the state directory \(paths.stateDirectory.path): \(error)")
        }
        let pairing = try ServePairing.prepare(paths: paths, listen: listen.host, name: mdnsName, logger: logger)
        let server = ServerInfo(id: pairing.identity.id, name: pairing.identity.name, version: BridgeVersion.current)
        let configuration = BridgeServerConfiguration(
            host: pairing.host,
            port: listen.port,
            server: server,
            helloTimeout: .milliseconds(Int64(helloTimeout * 1000)),
            maxMessageBytes: maxMessageBytes,
            pingInterval: pingInterval > 0 ? .milliseconds(Int64(pingInterval * 1000)) : nil
        )
        let bridge = BridgeServer(
            configuration: configuration,
            authenticator: Authenticator(sharedSecretFile: paths.tokenFile, devices: pairing.devices),
            registry: pairing.connections,
            logger: logger,
            onListening: { [noQr] listening in
                await pairing.listening(listening, noQR: noQr)
            }
        )
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: bridge), .init(service: pairing.revocationWatcher)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        defer { ServerRecord.remove(paths: paths) }
        try await group.run()
        logger.info("Stopped")
    }
}
