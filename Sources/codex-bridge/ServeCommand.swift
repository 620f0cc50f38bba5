import ArgumentParser
import BridgeOps
import BridgeServe
import BridgeServer
import BridgeStore
import Foundation
import Logging
import Metrics
import Prometheus

/// `codex-bridge serve`: the bridge itself. Each flag's name and help come from its ``ServeSetting``; a test
/// checks that every setting has its flag here and every flag its setting.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the bridge: the web app, WebSocket clients, Codex, mDNS, pairing.",
        discussion: """
            Every option can also be set in config.toml ($XDG_CONFIG_HOME/codex-bridge/config.toml, or in \
            --state-dir / $CODEX_BRIDGE_HOME): a flag given here wins over the file. See the README's table.
            """
    )

    @OptionGroup var state: StateOptions

    @OptionGroup var journal: JournalOptions

    @OptionGroup var push: PushOptions

    @Option(name: .setting(.listen), help: .setting(.listen), transform: ListenAddress.parse)
    var listen: ListenAddress?

    @Option(name: .setting(.helloTimeout), help: .setting(.helloTimeout))
    var helloTimeout: Double?

    @Option(name: .setting(.maxMessageBytes), help: .setting(.maxMessageBytes))
    var maxMessageBytes: Int?

    @Option(name: .setting(.maxUploadBytes), help: .setting(.maxUploadBytes))
    var maxUploadBytes: Int?

    @Option(name: .setting(.previewPort), help: .setting(.previewPort))
    var previewPort: Int?

    @Option(name: .setting(.previewOrigins), help: .setting(.previewOrigins))
    var previewOrigins: Int?

    @Option(name: .setting(.pingInterval), help: .setting(.pingInterval))
    var pingInterval: Double?

    @Option(name: .setting(.requestHeadTimeout), help: .setting(.requestHeadTimeout))
    var requestHeadTimeout: Double?

    @Option(name: .setting(.maxUnauthenticated), help: .setting(.maxUnauthenticated))
    var maxUnauthenticated: Int?

    @Option(name: .setting(.maxUnauthenticatedPerAddress), help: .setting(.maxUnauthenticatedPerAddress))
    var maxUnauthenticatedPerAddress: Int?

    @Option(name: .setting(.logLevel), help: .setting(.logLevel))
    var logLevel: String?

    @Option(name: .setting(.logFormat), help: .setting(.logFormat))
    var logFormat: String?

    @Flag(name: .setting(.qr), help: .setting(.qr))
    var noQr = false

    @Flag(name: .setting(.mdns), help: .setting(.mdns))
    var noMdns = false

    @Option(name: .setting(.mdnsName), help: .setting(.mdnsName))
    var mdnsName: String?

    @Option(name: .setting(.codex), help: .setting(.codex))
    var codex: String?

    @Option(name: .setting(.codexConfig), help: .setting(.codexConfig))
    var codexConfig: [String] = []

    @Option(name: .setting(.roots), help: .setting(.roots))
    var roots: [String] = []

    @Flag(name: .setting(.allowDangerFullAccess), help: .setting(.allowDangerFullAccess))
    var allowDangerFullAccess = false

    @Flag(name: .setting(.tls), inversion: .prefixedNo, help: .setting(.tls))
    var tls: Bool?

    @Option(name: .setting(.tlsCert), help: .setting(.tlsCert))
    var tlsCert: String?

    @Option(name: .setting(.tlsKey), help: .setting(.tlsKey))
    var tlsKey: String?

    @Flag(name: .setting(.tlsTailscale), help: .setting(.tlsTailscale))
    var tlsTailscale = false

    @Flag(name: .setting(.shared), help: .setting(.shared))
    var shared = false

    @Option(name: .setting(.sharedSocket), help: .setting(.sharedSocket))
    var sharedSocket: String?

    @Flag(name: .setting(.confirmPairing), help: .setting(.confirmPairing))
    var confirmPairing = false

    @Option(name: .setting(.shutdownGrace), help: .setting(.shutdownGrace))
    var shutdownGrace: DurationArgument?

    /// Tests: how long a pairing waits for confirmation (default 5m).
    @Option(name: .customLong("confirm-pairing-timeout"), help: .hidden)
    var confirmPairingTimeout: DurationArgument?

    /// Tests: how long the startup QR's code is valid (default 10m).
    @Option(name: .customLong("startup-code-ttl"), help: .hidden)
    var startupCodeTTL: DurationArgument?

    /// The settings the command line gives; nil where it says nothing, so config.toml can fill them in.
    var options: ServeOptions {
        var options = ServeOptions.unset
        options.listen = listen
        options.helloTimeout = helloTimeout
        options.maxMessageBytes = maxMessageBytes
        options.pingInterval = pingInterval
        options.requestHeadTimeout = requestHeadTimeout
        options.maxUnauthenticated = maxUnauthenticated
        options.maxUnauthenticatedPerAddress = maxUnauthenticatedPerAddress
        options.logLevel = logLevel
        options.logFormat = logFormat
        options.qr = noQr ? false : nil
        options.mdns = noMdns ? false : nil
        options.mdnsName = mdnsName
        options.codex = codex
        options.codexConfig = codexConfig.isEmpty ? nil : codexConfig
        options.roots = roots.isEmpty ? nil : roots
        options.allowDangerFullAccess = allowDangerFullAccess ? true : nil
        options.tls = tls
        options.tlsCert = tlsCert.map(Self.absolute)
        options.tlsKey = tlsKey.map(Self.absolute)
        options.tlsTailscale = tlsTailscale ? true : nil
        options.journalMaxAge = journal.maxAge
        options.journalMaxBytes = journal.maxBytes
        options.maxUploadBytes = maxUploadBytes
        options.previewPort = previewPort
        options.previewOrigins = previewOrigins
        // A socket named on the command line means shared mode.
        options.shared = shared || sharedSocket != nil ? true : nil
        options.sharedSocket = sharedSocket.map(Self.absolute)
        push.fill(&options)
        options.confirmPairing = confirmPairing ? true : nil
        options.shutdownGrace = shutdownGrace
        options.confirmPairingTimeout = confirmPairingTimeout
        options.startupCodeTTL = startupCodeTTL
        return options
    }

    /// A path given on the command line, made absolute against the current directory.
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    func validate() throws {
        do {
            try options.check(naming: \.flag)
        } catch {
            throw ValidationError("\(error.setting.flag) \(error.message)")
        }
    }

    /// Reads config.toml and resolves every setting; on a bad file prints one error naming the key and line
    /// and exits non-zero.
    func settings(paths: StatePaths) throws -> ServeSettings {
        do {
            return ServeSettings(options.overriding(try ServeConfigFile.load(paths.configFile)))
        } catch {
            Terminal.warn("error: \(error)\n")
            throw ExitCode.failure
        }
    }

    /// Parses the settings, sets up this process's logging and metrics, builds the bridge and runs it until
    /// SIGTERM or SIGINT.
    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let paths = state.paths
        let settings = try settings(paths: paths)
        let level = Logger.Level(rawValue: settings.logLevel) ?? .info
        LoggingSystem.bootstrap { [logFormat = settings.logFormat] label in
            var handler: any LogHandler = logFormat == "json" ? JSONLogHandler(label: label) : TextLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(MetricsRoute.factory(registry: metrics))
        let bridge = try await buildBridge(settings, paths: paths, logger: Logger(label: "codex-bridge"), metrics: metrics)
        try await bridge.run()
    }
}
