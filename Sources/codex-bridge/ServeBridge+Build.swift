import BridgeFleet
import BridgeHub
import BridgeOps
import BridgePreview
import BridgePreviewProxy
import BridgeProtocol
import BridgeServer
import BridgeStore
import BridgeTLS
import BridgeWeb
import CodexControl
import ConfinedFiles
import Discovery
import Foundation
import Hummingbird
import Logging
import Pairing
import Prometheus
import ServiceLifecycle

/// Builds everything `serve` runs from its settings: checks the port and codex, prepares the state directory,
/// the pairing, TLS, the hub, notifications and the server, and returns them as services that
/// ``ServeBridge/run(gracefulShutdownSignals:)`` runs. Tests call it in-process (port 0, no QR, no mDNS).
/// - Parameters:
///   - logger: the process's logger (the command bootstraps the logging system; tests never do).
///   - metrics: the registry `/metrics` serves (the command bootstraps the metrics system with it).
/// - Throws: ``CommandFailure`` (one line for the user) or `ExitCode` after printing the error.
func buildBridge(_ settings: ServeSettings, paths: StatePaths, logger: Logger, metrics: PrometheusCollectorRegistry) async throws
    -> ServeBridge
{
    // A port in use is one clear line before any other output (the bind itself comes after the startup logs).
    if settings.listen.port != 0, settings.listen.host.lowercased() != "tailscale",
        PortProbe.bindError(host: settings.listen.host, port: settings.listen.port) == EADDRINUSE
    {
        throw CommandFailure(PortProbe.inUseMessage(host: settings.listen.host, port: settings.listen.port, paths: paths))
    }
    // So is the preview origin's port (the main port + 1 unless --preview-port says otherwise).
    let previewPort = settings.previewPort ?? (settings.listen.port == 0 ? 0 : settings.listen.port + 1)
    if previewPort != 0, settings.listen.host.lowercased() != "tailscale",
        PortProbe.bindError(host: settings.listen.host, port: previewPort) == EADDRINUSE
    {
        throw CommandFailure("port \(previewPort), the preview origin's, is already in use; choose another with --preview-port PORT")
    }
    // An explicit codex that cannot be run is a startup error, not a retry loop.
    if let codex = settings.codex, codex.contains("/") {
        do {
            _ = try await CodexLocator(explicitPath: codex, askPython: false).locate()
        } catch {
            throw CommandFailure(error.message)
        }
    }
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
    // With --confirm-pairing on a terminal, serve asks y/N itself (ServePairingPrompt); else it prints how to decide.
    let prompting = settings.confirmPairing && ServePairingPrompt.canAsk
    let asked = AsyncStream.makeStream(of: PairingRequestRecord.self)
    let toPrompt: @Sendable (PairingRequestRecord) -> Void = { _ = asked.continuation.yield($0) }
    var pairing = try await ServePairing.prepare(
        paths: paths, listen: settings.listen.host, name: settings.mdnsName,
        confirmation: settings.confirmPairing ? settings.confirmPairingTimeout.duration : nil,
        announce: prompting ? toPrompt : ServePairing.announce, logger: logger)
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
    var notifications = try ServePush.prepare(settings.push, paths: paths, devices: pairing.registry, logger: logger)
    let uploads: UploadStore
    do {
        uploads = try UploadStore(directory: paths.stateDirectory.appendingPathComponent("uploads"), maxBytes: settings.maxUploadBytes)
    } catch {
        throw CommandFailure("cannot prepare \(paths.stateDirectory.path)/uploads: \(error)")
    }
    // The preview origin: a thread's dev servers, on a port of their own (same addresses and TLS).
    let previews = Previews(
        host: ServePairing.isWildcard(pairing.host) ? pairing.preferredHost ?? "localhost" : pairing.host, secure: tlsSource != nil,
        probe: { host, port in await HTTPProbe().speaksHTTP(host: host, port: port) })
    let hub: ThreadHub
    do {
        hub = try ThreadHub(
            codex: supervisor, policy: .init(roots: workspaceRoots, allowedSandboxes: sandboxes), storage: storage, logger: logger,
            uploads: uploads, push: notifications.coordinator, inhibitor: notifications.inhibitor, previews: previews)
    } catch {
        throw CommandFailure("cannot open the event journal in \(paths.databaseFile.path): \(error)")
    }
    // The machines linked to this one (`codex-bridge machines add`): a fleet session sees their threads too, and a
    // notification's answer to one of their approvals goes to them.
    let fleet = FleetLinks(
        home: MachineRef(id: pairing.identity.id, name: pairing.identity.name), hub: hub, journal: storage.journal,
        store: MachineStore(database: pairing.registry.database), logger: logger)
    notifications = notifications.withRoute(
        hub: hub, devices: pairing.registry, answerer: FleetNotificationAnswerer(hub: hub, links: fleet))
    var previewConfiguration = PreviewProxy.Configuration(
        host: pairing.host, port: previewPort,
        tls: tlsSource.map { source in { @Sendable in source.current() } })
    previewConfiguration.checkInterval = .seconds(1)
    let previewProxy = PreviewProxy(
        configuration: previewConfiguration, previews: previews, logger: logger,
        refusedDevices: { [registry = pairing.registry] ids in
            var refused = Set<String>()
            for id in ids {
                // Revoked, deleted, without `operate`, or unreadable: the preview ends.
                let device = try? await registry.device(id: id)
                if device == nil || device?.isRevoked == true || device?.scopes.contains(.operate) != true { refused.insert(id) }
            }
            return refused
        })
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
        registry: metrics, connections: pairing.connections, hub: hub,
        journalFiles: [paths.databaseFile, URL(fileURLWithPath: paths.databaseFile.path + "-wal")])
    // The one check of every credential: the upgrade's header, the hello's token, the HTTP routes' bearer.
    let credentials = CredentialCheck(
        sharedSecretFile: paths.tokenFile, devices: pairing.devices, rateLimiter: rateLimiter, logger: logger)
    let (listening, listened) = AsyncStream.makeStream(of: BridgeServer.Listening.self, bufferingPolicy: .bufferingNewest(1))
    let qrInvitations = AsyncStream.makeStream(of: StartupQR.Invitation.self, bufferingPolicy: .bufferingNewest(1))
    let bridge = BridgeServer(
        configuration: configuration,
        credentials: credentials,
        handler: FleetRouter(
            hub: hub, links: fleet,
            admin: MachineAdmin(store: MachineStore(database: pairing.registry.database), home: fleet.home, browse: MachinesCommand.nearby)),
        registry: pairing.connections,
        logger: logger,
        extraRoutes: {
            [
                metricsRoute, notifications, credentials,
                upload = UploadRoute(
                    store: uploads, auditor: Auditor(log: AuditLog(database: pairing.registry.database), logger: logger), logger: logger),
                files = FileDownloadRoute(hub: hub, logger: logger),
            ] router in
            // The routes that need a credential, behind the one check.
            let authenticated = router.group().add(middleware: BearerAuthMiddleware(credentials))
            metricsRoute.addRoutes(to: authenticated)
            upload.addRoutes(to: authenticated)
            files.addRoutes(to: authenticated)
            notifications.addRoutes(to: router, authenticator: credentials)
        },
        onListening: { [pairing] listening in
            qrInvitations.continuation.yield(await pairing.listening(listening, fingerprint: fingerprint))
            qrInvitations.continuation.finish()
            shared?.announce()
            previews.bridgeListening(port: listening.port)
            publisher?.serverListening(port: listening.port)
            listened.yield(listening)
            listened.finish()
        }
    )
    // Shut down in reverse: clients get 1001 first, then codex stops, then the hub drains its events; a shared
    // app-server this bridge started stops last.
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
    if let shared { services.append(.init(service: shared.appServer, successTerminationBehavior: .ignore)) }
    services += [
        .init(service: hub, successTerminationBehavior: .ignore), .init(service: supervisor), .init(service: bridge),
        .init(service: previewProxy),
        .init(service: pairing.revocationWatcher), .init(service: ScopeWatcher(hub: hub)),
        .init(service: JournalPruner(storage: storage, logger: logger)), .init(service: fleet),
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
    services.append(
        .init(
            service: ScopeRequestNotice(registry: pairing.registry, terminal: isatty(STDOUT_FILENO) == 1, logger: logger),
            successTerminationBehavior: .ignore))
    if prompting {
        services.append(
            .init(
                service: ServePairingPrompt(requests: asked.stream, registry: pairing.registry, logger: logger),
                successTerminationBehavior: .ignore))
    }
    services.append(
        .init(
            service: StartupQR(
                invitations: qrInvitations.stream, codexRunning: { await hub.isCodexRunning },
                show: settings.qr && isatty(STDOUT_FILENO) == 1,
                ttl: settings.startupCodeTTL.duration, logger: logger),
            successTerminationBehavior: .ignore))
    // Last, so it is the first to stop: running turns finish while clients, server and codex are all still there.
    services.append(.init(service: TurnDrain(hub: hub, grace: settings.shutdownGrace.duration, logger: logger)))
    return ServeBridge(services: services, listening: listening, paths: paths, logger: logger)
}
