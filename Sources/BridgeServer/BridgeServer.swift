import BridgeHub
import BridgeProtocol
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// The server: `/healthz` and the other HTTP routes, the upgrade with Bearer authentication, one
/// ``ConnectionHandler`` per WebSocket, on its event loop.
///
/// A `Service`: run it in a `ServiceGroup`. On graceful shutdown every client gets close 1001 before the
/// listener stops.
public struct BridgeServer: Service, CustomStringConvertible {
    /// Where the server ended up listening.
    public struct Listening: Sendable {
        public var host: String
        public var port: Int
    }

    private let configuration: BridgeServerConfiguration
    private let credentials: CredentialCheck
    private let handler: any RequestHandling
    private let registry: ConnectionRegistry
    private let logger: Logger
    private let onListening: @Sendable (Listening) async -> Void
    private let preAuth: PreAuthLedger
    private let extraRoutes: @Sendable (Router<BridgeRequestContext>) -> Void

    /// - Parameters:
    ///   - onListening: called once the socket is bound (port 0 resolved).
    ///   - credentials: the one check of every credential (its rate limiter is the one ``MetricsRoute`` reads).
    ///   - extraRoutes: adds HTTP routes (e.g. `/metrics`) next to `/healthz`.
    public init(
        configuration: BridgeServerConfiguration,
        credentials: CredentialCheck,
        handler: any RequestHandling = UnavailableRequestHandler(),
        registry: ConnectionRegistry = ConnectionRegistry(),
        logger: Logger,
        extraRoutes: @escaping @Sendable (Router<BridgeRequestContext>) -> Void = { _ in },
        onListening: @escaping @Sendable (Listening) async -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.credentials = credentials
        self.handler = handler
        self.registry = registry
        self.logger = logger
        self.onListening = onListening
        self.extraRoutes = extraRoutes
        self.preAuth = PreAuthLedger(maxTotal: configuration.maxUnauthenticated, maxPerAddress: configuration.maxUnauthenticatedPerAddress)
    }

    public func run() async throws {
        FileLimit.raiseToHardLimit(logger: logger)
        let router = Router(context: BridgeRequestContext.self)
        let health = Self.health(serverID: configuration.server.id)
        let stuck = Self.health(serverID: configuration.server.id, status: .serviceUnavailable)
        let watchdog = HubWatchdog(handler: handler)
        router.get("/healthz") { _, _ in watchdog.isResponsive ? health : stuck }
        router.get("/health") { _, _ in watchdog.isResponsive ? health : stuck }
        extraRoutes(router)
        if let authority = configuration.certificateAuthority {
            CertificateAuthorityRoutes(authority: authority).addRoutes(to: router)
        }
        if let assets = configuration.webAssets {
            WebRoutes(assets: assets).addRoutes(to: router)
        }
        let plaintext =
            configuration.tls == nil
            ? nil
            : Self.plaintextResponder(
                SecurityHeadersResponder(
                    inner: CertificateAuthorityRoutes.plaintextRouter(
                        authority: configuration.certificateAuthority, serverName: configuration.server.name,
                        assets: configuration.webAssets
                    ).buildResponder()),
                logger: logger)

        let configuration = self.configuration
        let environment = ConnectionEnvironment(
            configuration: configuration, credentials: credentials, handler: handler,
            registry: registry, preAuth: preAuth, logger: logger)
        let server = HTTPServerBuilder { responder in
            BridgeUpgradeChannel(
                responder: responder,
                plaintextResponder: plaintext,
                maxFrameSize: configuration.maxMessageBytes,
                tls: configuration.tls,
                preAuth: preAuth,
                requestHeadTimeout: configuration.requestHeadTimeout,
                shouldUpgrade: { request, channel, _ in self.shouldUpgrade(request, channel: channel) },
                connect: { setup, channel in
                    if configuration.echoMode {
                        try EchoConnectionHandler.install(on: channel, environment: environment, setup: setup)
                    } else {
                        try ConnectionHandler.install(on: channel, environment: environment, setup: setup)
                    }
                }
            )
        }
        let onListening = self.onListening
        let logger = self.logger
        let app = Application(
            responder: SecurityHeadersResponder(inner: router.buildResponder()),
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "codex-bridge"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                logger.notice("Listening", metadata: ["bridge.listen.host": "\(configuration.host)", "bridge.listen.port": "\(port)"])
                await onListening(Listening(host: configuration.host, port: port))
            },
            logger: logger
        )
        // The coordinator is shut down first (reverse order): it closes every client with 1001, then the
        // application stops listening.
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: app),
                    .init(service: watchdog),
                    .init(service: ShutdownCoordinator(registry: registry, timeout: configuration.closeTimeout, logger: logger)),
                ],
                logger: logger
            )
        )
        try await withGracefulShutdownHandler {
            try await group.run()
        } onGracefulShutdown: {
            Task { await group.triggerGracefulShutdown() }
        }
    }

    public var description: String { "BridgeServer" }

    /// The channel-level responder for plain HTTP on the TLS port (what Hummingbird's `Application` builds for
    /// the main router, for a router of its own).
    static func plaintextResponder(_ responder: some HTTPResponder<BridgeRequestContext>, logger: Logger) -> HTTPChannelHandler.Responder {
        { request, writer, channel in
            let context = BridgeRequestContext(source: .init(channel: channel, logger: logger))
            let response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch {
                response = Response(status: .internalServerError)
            }
            try await writer.write(response: response.head, body: response.body)
        }
    }

    /// `{"status":"ok","id":"<server id>"}`: the id lets `status` check that the process on the port is this
    /// bridge before it sends a credential there. The id is not a secret (mDNS advertises it). With 503 the
    /// status is `"unresponsive"`: the hub has not answered for a couple of seconds (``HubWatchdog``).
    static func health(serverID: String, status: HTTPResponse.Status = .ok) -> Response {
        let word = status == .ok ? "ok" : "unresponsive"
        let body = #"{"status":""# + word + #"","id":"# + JSONValue.string(serverID).jsonText + "}"
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// Decides an upgrade on the event loop; an `Authorization` header must hold a valid credential (401
    /// otherwise, 429 when rate limited): the ``CredentialCheck`` answers on the loop when it can, else off it.
    private func shouldUpgrade(_ request: HTTPRequest, channel: any Channel) -> UpgradeStep {
        let remote = Self.remoteAddress(channel)
        guard OriginPolicy(secure: configuration.tls != nil).allows(origin: request.headerFields[.origin], authority: request.authority)
        else {
            logger.notice("Upgrade refused: foreign Origin", metadata: ["bridge.remote": "\(remote)"])
            BridgeMetrics.shared.handshake("forbidden_origin")
            return .now(.refuse(.forbidden))
        }
        guard let header = request.headerFields[.authorization] else {
            return .now(upgrade(remote: remote, preauthenticated: nil))
        }
        let credential = Credential.authorization(header)
        if let outcome = credentials.checkNow(credential, remoteAddress: remote) {
            return .now(decide(outcome, remote: remote))
        }
        return .later { self.decide(await self.credentials.check(credential, remoteAddress: remote), remote: remote) }
    }

    private func decide(_ outcome: CredentialOutcome, remote: String) -> UpgradeDecision {
        switch outcome {
        case .granted(let grant):
            return upgrade(remote: remote, preauthenticated: grant)
        case .refused(let rateLimited):
            BridgeMetrics.shared.handshake(rateLimited ? "rate_limited" : "unauthorized")
            return .refuse(rateLimited ? .tooManyRequests : .unauthorized)
        case .pending:
            return .refuse(.unauthorized)  // a header never redeems a pairing code
        }
    }

    /// Upgrades, unless the server is shutting down (503).
    private func upgrade(remote: String, preauthenticated: Grant?) -> UpgradeDecision {
        guard registry.isAccepting else { return .refuse(.serviceUnavailable) }
        return .upgrade(ConnectionSetup(remoteAddress: remote, preauthenticated: preauthenticated))
    }

    static func bearerToken(_ header: String) -> String? {
        Credential.bearerToken(header)
    }

    static func remoteAddress(_ channel: any Channel) -> String {
        channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
