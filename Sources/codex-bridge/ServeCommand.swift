import ArgumentParser
import BridgeHub
import BridgeOps
import BridgeProtocol
import BridgeServer
import BridgeStore
import BridgeTLS
import BridgeWeb
import CodexControl
import Discovery
import Foundation
import Hummingbird
import Logging
import Metrics
import Pairing
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `codex-bridge serve`: the bridge itself.
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

    @Option(
        help: ArgumentHelp("Address and port to listen on; port 0 picks a free one (default 0.0.0.0:9099).", valueName: "host:port"),
        transform: ListenAddress.parse)
    var listen: ListenAddress?

    @Option(help: ArgumentHelp("Seconds a client has to send hello (default 10).", valueName: "seconds"))
    var helloTimeout: Double?

    @Option(help: ArgumentHelp("Largest accepted message in bytes; larger ones close with 1009 (default 1048576).", valueName: "bytes"))
    var maxMessageBytes: Int?

    @Option(help: ArgumentHelp("Largest attachment (POST /uploads) in bytes (default 20971520).", valueName: "bytes"))
    var maxUploadBytes: Int?

    @Option(help: ArgumentHelp("Seconds between WebSocket pings; 0 disables them (default 20).", valueName: "seconds"))
    var pingInterval: Double?

    @Option(help: ArgumentHelp("Seconds a new connection has to send its first request head (default 5).", valueName: "seconds"))
    var requestHeadTimeout: Double?

    @Option(
        help: ArgumentHelp("Most connections not yet authenticated at once; past it the oldest is closed (default 512).", valueName: "n"))
    var maxUnauthenticated: Int?

    @Option(help: ArgumentHelp("Most connections not yet authenticated from one address (default 128).", valueName: "n"))
    var maxUnauthenticatedPerAddress: Int?

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error, critical (default info).", valueName: "level"))
    var logLevel: String?

    @Option(help: ArgumentHelp("Log format: text (one line per event) or json (one object per line); default text.", valueName: "format"))
    var logFormat: String?

    @Flag(help: "Do not print the pairing QR code at startup.")
    var noQr = false

    @Flag(help: "Do not advertise the bridge over mDNS.")
    var noMdns = false

    @Option(help: ArgumentHelp("Instance name advertised over mDNS (default: the host name).", valueName: "name"))
    var mdnsName: String?

    @Option(
        help: ArgumentHelp("Path of the codex binary (default: config, then PATH, then the openai-codex-cli-bin venv).", valueName: "path"))
    var codex: String?

    @Option(name: .customLong("codex-config"), help: ArgumentHelp("Passed to codex as -c KEY=VALUE (repeatable).", valueName: "key=value"))
    var codexConfig: [String] = []

    @Option(
        name: .customLong("root"),
        help: ArgumentHelp("A directory threads may run in (repeatable; default: the current directory).", valueName: "dir"))
    var roots: [String] = []

    @Flag(help: "Let clients choose the danger-full-access sandbox.")
    var allowDangerFullAccess = false

    @Flag(
        inversion: .prefixedNo,
        help:
            "Serve https:// and wss:// with a certificate from this workstation's own certificate authority in STATE/tls (made on first use; see `codex-bridge tls ca`)."
    )
    var tls: Bool?

    @Option(
        help: ArgumentHelp(
            "A PEM certificate chain to serve instead of one from the workstation's CA (a CA the phones trust); reloaded when it changes. Needs --tls-key.",
            valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert (mode 0600).", valueName: "file"))
    var tlsKey: String?

    @Flag(
        help:
            "Serve this machine's Tailscale certificate (`tailscale cert`, renewed daily) and offer its MagicDNS name first: phones on the tailnet get https:// their browsers trust."
    )
    var tlsTailscale = false

    @Flag(
        help:
            "Share Codex with the terminal: use the shared codex app-server (started if none runs) that `codex --remote unix://…` attaches to."
    )
    var shared = false

    @Option(
        help: ArgumentHelp(
            "The shared app-server's unix socket (implies --shared; default $CODEX_HOME/app-server-control/app-server-control.sock).",
            valueName: "path"))
    var sharedSocket: String?

    @Flag(
        help:
            "Make every pairing wait for this workstation's confirmation: the phone shows a check code, `codex-bridge devices allow ID` completes it."
    )
    var confirmPairing = false

    /// Tests: how long a pairing waits for confirmation (default 5m).
    @Option(name: .customLong("confirm-pairing-timeout"), help: .hidden)
    var confirmPairingTimeout: DurationArgument?

    /// The settings the command line gives; nil where it says nothing, so config.toml can fill them in.
    var options: ServeOptions {
        var options = ServeOptions(
            listen: listen, helloTimeout: helloTimeout, maxMessageBytes: maxMessageBytes, pingInterval: pingInterval,
            requestHeadTimeout: requestHeadTimeout, maxUnauthenticated: maxUnauthenticated,
            maxUnauthenticatedPerAddress: maxUnauthenticatedPerAddress, logLevel: logLevel, logFormat: logFormat,
            qr: noQr ? false : nil, mdns: noMdns ? false : nil, mdnsName: mdnsName, codex: codex,
            codexConfig: codexConfig.isEmpty ? nil : codexConfig, roots: roots.isEmpty ? nil : roots,
            allowDangerFullAccess: allowDangerFullAccess ? true : nil, tls: tls, tlsCert: tlsCert.map(Self.absolute),
            tlsKey: tlsKey.map(Self.absolute), tlsTailscale: tlsTailscale ? true : nil, journalMaxAge: journal.maxAge,
            journalMaxBytes: journal.maxBytes)
        options.maxUploadBytes = maxUploadBytes
        // A socket named on the command line means shared mode.
        options.shared = shared || sharedSocket != nil ? true : nil
        options.sharedSocket = sharedSocket.map(Self.absolute)
        push.fill(&options)
        options.confirmPairing = confirmPairing ? true : nil
        options.confirmPairingTimeout = confirmPairingTimeout
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
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let paths = state.paths
        let settings = try settings(paths: paths)
        // A port in use is one clear line before any other output (the bind itself comes after the startup logs).
        if settings.listen.port != 0, settings.listen.host.lowercased() != "tailscale",
            PortProbe.bindError(host: settings.listen.host, port: settings.listen.port) == EADDRINUSE
        {
            throw CommandFailure(PortProbe.inUseMessage(host: settings.listen.host, port: settings.listen.port, paths: paths))
        }
        // An explicit codex that cannot be run is a startup error, not a retry loop.
        if let codex = settings.codex, codex.contains("/") {
            do {
                _ = try await CodexLocator(explicitPath: codex, askPython: false).locate()
            } catch {
                throw CommandFailure(error.message)
            }
        }
        let level = Logger.Level(rawValue: settings.logLevel) ?? .info
        LoggingSystem.bootstrap { [logFormat = settings.logFormat] label in
            var handler: any LogHandler = logFormat == "json" ? JSONLogHandler(label: label) : TextLogHandler(label: label)
            handler.logLevel = level
            return handler
        }
        let metricsRegistry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(MetricsRoute.factory(registry: metricsRegistry))
        let logger = Logger(label: "codex-bridge")
        do {
            try paths.prepare()
        } catch {
            throw CommandFailure("cannot prepare the state directory \(paths.stateDirectory.path): \(error)")
        }
        // Secrets this bridge owns are kept 0600 (tightened, and said so); one owned by someone else is refused.
        do {
            for file in [paths.tokenFile, paths.databaseFile] + TLSStore(directory: paths.tlsDirectory).keyFiles {
                if let tightened = try SecretFile.secure(file) { logger.warning("\(tightened)") }
            }
        } catch {
            throw CommandFailure("\(error)")
        }
        do {
            _ = try SharedSecret(paths: paths).loadOrCreate()
        } catch {
            throw CommandFailure("cannot prepare the state directory \(paths.stateDirectory.path): \(error)")
        }
        let workspaceRoots: WorkspaceRoots
        do {
            workspaceRoots = try WorkspaceRoots(settings.roots.isEmpty ? [FileManager.default.currentDirectoryPath] : settings.roots)
        } catch {
            throw CommandFailure("\(error)")
        }
        let codexConfiguration = CodexSupervisor.Configuration(
            locator: CodexLocator(explicitPath: settings.codex),
            server: .init(configOverrides: settings.codexConfig, clientVersion: BridgeVersion.current)
        )
        let shared =
            settings.shared
            ? ServeShared(
                socketPath: settings.sharedSocket, codex: codexConfiguration, workingDirectory: workspaceRoots.paths.first, logger: logger)
            : nil
        let supervisor = CodexSupervisor(configuration: shared?.connectionConfiguration ?? codexConfiguration, logger: logger)
        var sandboxes: Set<String> = ["read-only", "workspace-write"]
        if settings.allowDangerFullAccess { sandboxes.insert("danger-full-access") }
        var pairing = try await ServePairing.prepare(
            paths: paths, listen: settings.listen.host, name: settings.mdnsName,
            confirmation: settings.confirmPairing ? settings.confirmPairingTimeout.duration : nil, logger: logger)
        pairing.sharedSocket = shared?.socketPath
        let storage = JournalOptions.storage(database: pairing.registry.database, settings: settings, logger: logger)
        var authority: CertificateAuthority?
        var userCertificate: CertificateFiles?
        var tailscaleRenewal: TailscaleCertificate?
        if settings.tlsTailscale {
            let tailscale = try await TailscaleCertificate.obtain(paths: paths, logger: logger)
            pairing.preferredHost = tailscale.domain
            userCertificate = tailscale.files
            tailscaleRenewal = tailscale
        } else if let cert = settings.tlsCert, let key = settings.tlsKey {
            userCertificate = CertificateFiles(certificate: URL(fileURLWithPath: cert), key: URL(fileURLWithPath: key))
        } else if settings.tls {
            do {
                authority = try await ServeTLS.prepare(paths: paths, listenHosts: [pairing.host], logger: logger).0
                pairing.workstationCA = true
            } catch {
                throw CommandFailure("cannot set up TLS: \(error)")
            }
        } else if let warning = ServeTLS.plaintextWarning(host: pairing.host) {
            logger.warning("\(warning)")
        }
        var tlsFingerprint = authority?.fingerprint
        var tlsSource: TLSContextSource?
        do {
            if let files = userCertificate {
                tlsSource = try TLSContextSource(
                    load: { try files.makeServerContext() }, changeToken: { files.changeToken() }, logger: logger)
                tlsFingerprint = try files.fingerprint()
                logger.info(
                    "Serving the provided TLS certificate",
                    metadata: ["bridge.tls.cert": "\(files.certificate.path)", "bridge.tls.fingerprint": "\(tlsFingerprint ?? "")"])
            } else if let authority {
                tlsSource = try ServeTLS.contextSource(paths: paths, authority: authority, logger: logger)
                logger.notice(
                    "Serving TLS with this workstation's certificate authority; phones compare this SHA-256 when they trust it",
                    metadata: ["bridge.tls.fingerprint": "\(authority.fingerprint)"])
            }
        } catch {
            throw CommandFailure("cannot set up TLS: \(error)")
        }
        let fingerprint = tlsFingerprint
        let hub: ThreadHub
        do {
            hub = try ThreadHub(
                codex: supervisor, policy: .init(roots: workspaceRoots, allowedSandboxes: sandboxes), storage: storage, logger: logger)
        } catch {
            throw CommandFailure("cannot open the event journal in \(paths.databaseFile.path): \(error)")
        }
        let notifications = try await ServePush.prepare(settings.push, paths: paths, devices: pairing.registry, hub: hub, logger: logger)
        let uploads: UploadStore
        do {
            uploads = try UploadStore(directory: paths.stateDirectory.appendingPathComponent("uploads"), maxBytes: settings.maxUploadBytes)
        } catch {
            throw CommandFailure("cannot prepare \(paths.stateDirectory.path)/uploads: \(error)")
        }
        await hub.useUploads(uploads)
        let server = ServerInfo(
            id: pairing.identity.id, name: pairing.identity.name, version: BridgeVersion.current, pushPublicKey: notifications.publicKey)
        let configuration = BridgeServerConfiguration(
            host: pairing.host,
            port: settings.listen.port,
            server: server,
            helloTimeout: .milliseconds(Int64(settings.helloTimeout * 1000)),
            maxMessageBytes: settings.maxMessageBytes,
            pingInterval: settings.pingInterval > 0 ? .milliseconds(Int64(settings.pingInterval * 1000)) : nil,
            tls: tlsSource,
            webAssets: WebAssets.fromEnvironment(),
            certificateAuthority: authority.map {
                PublishedAuthority(
                    certificateDER: $0.certificateDER, fingerprint: $0.fingerprint, commonName: $0.commonName,
                    profile: ConfigurationProfile.make(authority: $0, serverName: pairing.identity.name))
            },
            requestHeadTimeout: .milliseconds(Int64(settings.requestHeadTimeout * 1000)),
            maxUnauthenticated: settings.maxUnauthenticated,
            maxUnauthenticatedPerAddress: settings.maxUnauthenticatedPerAddress
        )
        let publisher: MDNSPublisher? =
            !settings.mdns
            ? nil
            : MDNSPublisher(
                advertisement: MDNSAdvertisement(
                    name: settings.mdnsName ?? MDNSAdvertisement.defaultName(), port: settings.listen.port, serverID: server.id,
                    tls: fingerprint != nil, certificateFingerprint: fingerprint),
                logger: logger
            )
        let rateLimiter = AuthRateLimiter(configuration: configuration)
        let metricsRoute = MetricsRoute(
            registry: metricsRegistry, connections: pairing.connections, hub: hub,
            journalFiles: [paths.databaseFile, URL(fileURLWithPath: paths.databaseFile.path + "-wal")])
        let bearer = BearerAuthenticator(sharedSecretFile: paths.tokenFile, devices: pairing.registry, rateLimiter: rateLimiter)
        let bridge = BridgeServer(
            configuration: configuration,
            authenticator: Authenticator(sharedSecretFile: paths.tokenFile, devices: pairing.devices),
            handler: hub,
            registry: pairing.connections,
            logger: logger,
            rateLimiter: rateLimiter,
            extraRoutes: {
                [
                    metricsRoute, notifications, bearer,
                    upload = UploadRoute(store: uploads, audit: AuditLog(database: pairing.registry.database), logger: logger),
                    files = FileDownloadRoute(hub: hub, logger: logger),
                ] router in
                // The routes that need a credential, behind the one check.
                let authenticated = router.group().add(middleware: BearerAuthMiddleware(bearer))
                metricsRoute.addRoutes(to: authenticated)
                upload.addRoutes(to: authenticated)
                files.addRoutes(to: authenticated)
                notifications.addRoutes(to: router, authenticator: bearer)
            },
            onListening: { [qr = settings.qr, pairing] listening in
                await pairing.listening(listening, noQR: !qr, fingerprint: fingerprint)
                shared?.announce()
                publisher?.serverListening(port: listening.port)
            }
        )
        // Shut down in reverse: clients get 1001 first, then codex stops, then the hub drains its events; a shared
        // app-server this bridge started stops last.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let shared { services.append(.init(service: shared.appServer, successTerminationBehavior: .ignore)) }
        services += [
            .init(service: hub, successTerminationBehavior: .ignore), .init(service: supervisor), .init(service: bridge),
            .init(service: pairing.revocationWatcher), .init(service: ScopeWatcher(hub: hub)),
            .init(service: JournalPruner(storage: storage, logger: logger)),
        ]
        services += notifications.services
        if let publisher { services.append(.init(service: publisher)) }
        if let tailscaleRenewal { services.append(.init(service: tailscaleRenewal)) }
        if let authority {
            let magicDNS = await TailscaleCLI(logger: logger).magicDNSName()
            services.append(
                .init(
                    service: ServeTLSRenewal(
                        paths: paths, authority: authority, listenHosts: [pairing.host], magicDNSName: magicDNS,
                        interval: ServeTLSRenewal.interval(), logger: logger)))
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        defer { ServerRecord.remove(paths: paths) }
        try await group.run()
        logger.info("Stopped")
    }
}
