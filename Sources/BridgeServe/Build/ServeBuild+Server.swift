import BridgeFleet
import BridgeHub
import BridgePreview
import BridgePreviewProxy
import BridgeProtocol
import BridgeServer
import BridgeStore
import BridgeTLS
import BridgeWeb
import Discovery
import Foundation
import Logging
import Prometheus

extension ServeBuild {
    /// What the server step made: the server with its routes, the preview origin, the mDNS publisher, and the
    /// streams that carry the bound address to the caller and to the startup QR.
    struct Server: Sendable {
        let bridge: BridgeServer
        let previewProxy: PreviewProxy
        let publisher: MDNSPublisher?
        /// Yields the bound address once (port 0 resolved), then ends.
        let listening: AsyncStream<BridgeServer.Listening>
        let invitations: AsyncStream<StartupQR.Invitation>
    }

    /// Makes the WebSocket server (behind the one credential check, requests routed through the fleet) with its
    /// HTTP routes, the preview origin and the mDNS advertisement. Once the socket is bound it records
    /// `server.json`, hands the QR its invitation and tells the others the port.
    static func makeServer(
        _ settings: ServeSettings, state: State, tls: TLS, core: Core, metrics: PrometheusCollectorRegistry, logger: Logger
    ) -> Server {
        let pairing = state.pairing
        let configuration = serverConfiguration(settings, state: state, tls: tls, core: core)
        let publisher: MDNSPublisher? =
            settings.mdns
            ? MDNSPublisher(
                advertisement: MDNSAdvertisement(
                    name: settings.mdnsName ?? MDNSAdvertisement.defaultName(), port: settings.listen.port,
                    serverID: configuration.server.id,
                    tls: tls.fingerprint != nil, certificateFingerprint: tls.fingerprint),
                logger: logger) : nil
        // The one check of every credential: the upgrade's header, the hello's token, the HTTP routes' bearer.
        let credentials = CredentialCheck(
            sharedSecretFile: state.paths.tokenFile, devices: pairing.devices, rateLimiter: AuthRateLimiter(configuration: configuration),
            logger: logger)
        let routes = httpRoutes(state: state, core: core, credentials: credentials, metrics: metrics, logger: logger)
        let (listening, listened) = AsyncStream.makeStream(of: BridgeServer.Listening.self, bufferingPolicy: .bufferingNewest(1))
        let invitations = AsyncStream.makeStream(of: StartupQR.Invitation.self, bufferingPolicy: .bufferingNewest(1))
        let admin = MachineAdmin(
            store: MachineStore(database: pairing.registry.database), home: core.fleet.home, browse: NearbyMachines.browse)
        let bridge = BridgeServer(
            configuration: configuration, credentials: credentials, handler: FleetRouter(hub: core.hub, links: core.fleet, admin: admin),
            registry: pairing.connections, logger: logger, extraRoutes: { routes.add(to: $0) },
            onListening: { [shared = core.shared, previews = core.previews, fingerprint = tls.fingerprint] listening in
                invitations.continuation.yield(await pairing.listening(listening, fingerprint: fingerprint))
                invitations.continuation.finish()
                shared?.announce()
                previews.bridgeListening(port: listening.port)
                publisher?.serverListening(port: listening.port)
                listened.yield(listening)
                listened.finish()
            })
        return Server(
            bridge: bridge, previewProxy: previewProxy(state: state, tls: tls, core: core, logger: logger), publisher: publisher,
            listening: listening, invitations: invitations.stream)
    }

    /// The server's settings: address, identity, limits, TLS, the web app and the CA's public routes.
    static func serverConfiguration(_ settings: ServeSettings, state: State, tls: TLS, core: Core) -> BridgeServerConfiguration {
        let identity = state.pairing.identity
        return BridgeServerConfiguration(
            host: state.pairing.host, port: settings.listen.port,
            server: ServerInfo(
                id: identity.id, name: identity.name, version: BridgeVersion.current, pushPublicKey: core.notifications.publicKey),
            helloTimeout: .milliseconds(Int64(settings.helloTimeout * 1000)), maxMessageBytes: settings.maxMessageBytes,
            pingInterval: settings.pingInterval > 0 ? .milliseconds(Int64(settings.pingInterval * 1000)) : nil,
            tls: tls.source, webAssets: WebAssets.fromEnvironment(),
            certificateAuthority: tls.authority.map {
                PublishedAuthority(
                    certificateDER: $0.certificateDER, fingerprint: $0.fingerprint, commonName: $0.commonName,
                    profile: ConfigurationProfile.make(authority: $0, serverName: identity.name))
            },
            requestHeadTimeout: .milliseconds(Int64(settings.requestHeadTimeout * 1000)),
            maxUnauthenticated: settings.maxUnauthenticated, maxUnauthenticatedPerAddress: settings.maxUnauthenticatedPerAddress)
    }

    /// `/metrics`, `/uploads`, `/files` and `/push/action`, over the hub, the uploads and the notifications.
    static func httpRoutes(
        state: State, core: Core, credentials: CredentialCheck, metrics: PrometheusCollectorRegistry, logger: Logger
    ) -> HTTPRoutes {
        let database = state.paths.databaseFile
        return HTTPRoutes(
            credentials: credentials,
            metrics: MetricsRoute(
                registry: metrics, connections: state.pairing.connections, gauges: HubRoutePort(core.hub),
                journalFiles: [database, URL(fileURLWithPath: database.path + "-wal")]),
            uploads: UploadRoute(
                store: state.uploads, auditor: Auditor(log: AuditLog(database: state.pairing.registry.database), logger: logger),
                logger: logger),
            files: FileDownloadRoute(files: HubRoutePort(core.hub), logger: logger), pushAction: core.notifications.route)
    }

    /// The preview origin: a thread's dev servers on a port of their own (same addresses and TLS); a preview ends
    /// when its device is revoked, deleted, loses `operate` or cannot be read.
    static func previewProxy(state: State, tls: TLS, core: Core, logger: Logger) -> PreviewProxy {
        var configuration = PreviewProxy.Configuration(
            host: state.pairing.host, port: state.previewPort, originPorts: state.originPorts,
            tls: tls.source.map { source in { @Sendable in source.current() } })
        configuration.checkInterval = .seconds(1)
        return PreviewProxy(
            configuration: configuration, previews: core.previews, logger: logger,
            refusedDevices: { [registry = state.pairing.registry] ids in
                var refused = Set<String>()
                for id in ids {
                    let device = try? await registry.device(id: id)
                    if device == nil || device?.isRevoked == true || device?.scopes.contains(.operate) != true { refused.insert(id) }
                }
                return refused
            })
    }
}
