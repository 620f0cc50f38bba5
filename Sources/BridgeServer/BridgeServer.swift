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
    private let authenticator: Authenticator
    private let handler: any RequestHandling
    private let registry: ConnectionRegistry
    private let logger: Logger
    private let onListening: @Sendable (Listening) async -> Void
    private let rateLimiter: AuthRateLimiter
    private let preAuth: PreAuthLedger
    private let extraRoutes: @Sendable (Router<BridgeRequestContext>) -> Void

    /// - Parameters:
    ///   - onListening: called once the socket is bound (port 0 resolved).
    ///   - rateLimiter: failed authentications per address; pass the one ``MetricsRoute`` uses.
    ///   - extraRoutes: adds HTTP routes (e.g. `/metrics`) next to `/healthz`.
    public init(
        configuration: BridgeServerConfiguration,
        authenticator: Authenticator,
        handler: any RequestHandling = UnavailableRequestHandler(),
        registry: ConnectionRegistry = ConnectionRegistry(),
        logger: Logger,
        rateLimiter: AuthRateLimiter? = nil,
        extraRoutes: @escaping @Sendable (Router<BridgeRequestContext>) -> Void = { _ in },
        onListening: @escaping @Sendable (Listening) async -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.authenticator = authenticator
        self.handler = handler
        self.registry = registry
        self.logger = logger
        self.onListening = onListening
        self.extraRoutes = extraRoutes
        self.rateLimiter = rateLimiter ?? AuthRateLimiter(configuration: configuration)
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
            configuration: configuration, authenticator: authenticator, rateLimiter: rateLimiter, handler: handler,
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
                connect: { setup, channel in try ConnectionHandler.install(on: channel, environment: environment, setup: setup) }
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

    /// Decides an upgrade on the event loop; a Bearer header must be valid (401 otherwise, 429 when rate
    /// limited), which is checked off the loop.
    private func shouldUpgrade(_ request: HTTPRequest, channel: any Channel) -> UpgradeStep {
        let remote = Self.remoteAddress(channel)
        guard OriginPolicy(secure: configuration.tls != nil).allows(origin: request.headerFields[.origin], authority: request.authority)
        else {
            logger.notice("Upgrade refused: foreign Origin", metadata: ["bridge.remote": "\(remote)"])
            BridgeMetrics.shared.handshake("forbidden_origin")
            return .now(.refuse(.forbidden))
        }
        guard let header = request.headerFields[.authorization] else {
            return .now(upgrade(channel: channel, remote: remote, preauthenticated: nil))
        }
        // A pairing code is redeemed only in hello (which describes the device), never from a header.
        guard let token = Self.bearerToken(header), !Authenticator.isPairingCode(token) else {
            rateLimiter.recordFailure(remote)
            BridgeMetrics.shared.handshake("unauthorized")
            return .now(.refuse(.unauthorized))
        }
        // A valid high-entropy credential is never throttled (clients behind one NAT or proxy share an
        // address with whoever fails); only failures count, and a limited address learns nothing more.
        return .later {
            let result = await self.authenticator.authenticateCredential(token: token, remoteAddress: remote)
            guard case .accepted = result else {
                let limited = self.rateLimiter.isLimited(remote)
                self.rateLimiter.recordFailure(remote)
                self.logger.notice("Upgrade refused: bad bearer token", metadata: ["bridge.remote": "\(remote)"])
                BridgeMetrics.shared.handshake(limited ? "rate_limited" : "unauthorized")
                return .refuse(limited ? .tooManyRequests : .unauthorized)
            }
            return self.upgrade(channel: channel, remote: remote, preauthenticated: result)
        }
    }

    /// Upgrades, unless the server is shutting down (503).
    private func upgrade(channel: any Channel, remote: String, preauthenticated: AuthenticationResult?) -> UpgradeDecision {
        guard registry.isAccepting else { return .refuse(.serviceUnavailable) }
        return .upgrade(ConnectionSetup(remoteAddress: remote, preauthenticated: preauthenticated))
    }

    static func bearerToken(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    static func remoteAddress(_ channel: any Channel) -> String {
        channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
