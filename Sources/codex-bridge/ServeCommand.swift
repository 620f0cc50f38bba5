import ArgumentParser
import BridgeProtocol
import BridgeServer
import BridgeOps
import BridgeStore
import CodexControl
import Discovery
import Foundation
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `codex-bridge serve`: the bridge itself.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the bridge: WebSocket clients, Codex, mDNS, pairing."
    )

    @OptionGroup var state: StateOptions

    @OptionGroup var journal: JournalOptions

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

    @Option(help: ArgumentHelp("Log format: text (one line per event) or json (one object per line).", valueName: "format"))
    var logFormat: String = "text"

    @Flag(help: "Do not print the pairing QR code at startup.")
    var noQr = false

    @Flag(help: "Do not advertise the bridge over mDNS.")
    var noMdns = false

    @Option(help: ArgumentHelp("Instance name advertised over mDNS (default: the host name).", valueName: "name"))
    var mdnsName: String?

    @Option(help: ArgumentHelp("Path of the codex binary (default: config, then PATH, then the openai-codex-cli-bin venv).", valueName: "path"))
    var codex: String?

    @Option(name: .customLong("codex-config"), help: ArgumentHelp("Passed to codex as -c KEY=VALUE (repeatable).", valueName: "key=value"))
    var codexConfig: [String] = []

    @Option(name: .customLong("root"), help: ArgumentHelp("A directory threads may run in (repeatable; default: the current directory).", valueName: "dir"))
    var roots: [String] = []

    @Flag(help: "Let clients choose the danger-full-access sandbox.")
    var allowDangerFullAccess = false

    func validate() throws {
        for entry in codexConfig where !entry.contains("=") {
            throw ValidationError("--codex-config expects KEY=VALUE, got '\(entry)'")
        }
        guard helloTimeout > 0 else { throw ValidationError("--hello-timeout must be positive") }
        guard maxMessageBytes >= 1024 else { throw ValidationError("--max-message-bytes must be at least 1024") }
        guard pingInterval >= 0 else { throw ValidationError("--ping-interval must not be negative") }
        guard ["text", "json"].contains(logFormat) else { throw ValidationError("--log-format must be text or json") }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { [logFormat] label in
            var handler: any LogHandler = logFormat == "json" ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let metricsRegistry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(MetricsRoute.factory(registry: metricsRegistry))
        let logger = Logger(label: "codex-bridge")
        let paths = state.paths
        do {
            try paths.prepare()
            _ = try SharedSecret(paths: paths).loadOrCreate()
        } catch {
            throw CommandFailure("cannot prepare the state directory \(paths.stateDirectory.path): \(error)")
        }
        let workspaceRoots: WorkspaceRoots
        do {
            workspaceRoots = try WorkspaceRoots(roots.isEmpty ? [FileManager.default.currentDirectoryPath] : roots)
        } catch {
            throw CommandFailure("\(error)")
        }
        let supervisor = CodexSupervisor(
            configuration: .init(
                locator: CodexLocator(explicitPath: codex),
                server: .init(configOverrides: codexConfig, clientVersion: BridgeVersion.current)
            ),
            logger: logger
        )
        var sandboxes: Set<String> = ["read-only", "workspace-write"]
        if allowDangerFullAccess { sandboxes.insert("danger-full-access") }
        let pairing = try ServePairing.prepare(paths: paths, listen: listen.host, name: mdnsName, logger: logger)
        let storage = journal.storage(database: pairing.registry.database, logger: logger)
        let hub: ThreadHub
        do {
            hub = try ThreadHub(
                codex: supervisor, policy: .init(roots: workspaceRoots, allowedSandboxes: sandboxes), storage: storage, logger: logger)
        } catch {
            throw CommandFailure("cannot open the event journal in \(paths.databaseFile.path): \(error)")
        }
        let server = ServerInfo(id: pairing.identity.id, name: pairing.identity.name, version: BridgeVersion.current)
        let configuration = BridgeServerConfiguration(
            host: pairing.host,
            port: listen.port,
            server: server,
            helloTimeout: .milliseconds(Int64(helloTimeout * 1000)),
            maxMessageBytes: maxMessageBytes,
            pingInterval: pingInterval > 0 ? .milliseconds(Int64(pingInterval * 1000)) : nil
        )
        let publisher: MDNSPublisher? =
            noMdns
            ? nil
            : MDNSPublisher(
                advertisement: MDNSAdvertisement(name: mdnsName ?? MDNSAdvertisement.defaultName(), port: listen.port, serverID: server.id),
                logger: logger
            )
        let bridge = BridgeServer(
            configuration: configuration,
            authenticator: Authenticator(sharedSecretFile: paths.tokenFile, devices: pairing.devices),
            handler: hub,
            registry: pairing.connections,
            logger: logger,
            extraRoutes: MetricsRoute(
                registry: metricsRegistry, sharedSecretFile: paths.tokenFile, devices: pairing.registry, connections: pairing.connections,
                hub: hub, journalFiles: [paths.databaseFile, URL(fileURLWithPath: paths.databaseFile.path + "-wal")]
            ).addRoutes(to:),
            onListening: { [noQr] listening in
                await pairing.listening(listening, noQR: noQr)
                publisher?.serverListening(port: listening.port)
            }
        )
        let group = ServiceGroup(
            configuration: .init(
                // Shut down in reverse: clients get 1001 first, then codex stops, then the hub drains its events.
                services: [.init(service: hub, successTerminationBehavior: .ignore), .init(service: supervisor), .init(service: bridge),
                           .init(service: pairing.revocationWatcher), .init(service: JournalPruner(storage: storage, logger: logger))] + (publisher.map { [.init(service: $0)] } ?? []),
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        defer { ServerRecord.remove(paths: paths) }
        try await group.run()
        logger.info("Stopped")
    }
}
