import AsyncHTTPClient
import BridgePreview
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// The previews' listeners, beside the bridge's (same addresses and TLS), serving nothing of the bridge (no app,
/// no API, no credentials): the preview port (the main port + 1 by default), where tickets are exchanged, and the
/// preview origins (the ports after it), one per preview, each serving its preview's dev server on loopback to a
/// browser holding that origin's live session. A `Service`: it runs the listeners and the session watcher, and
/// ends them on graceful shutdown.
public struct PreviewProxy: Service, CustomStringConvertible {
    /// Bounds on what the proxy passes and how long it waits.
    public struct Limits: Sendable {
        /// Largest request body passed to a dev server.
        public var maxRequestBodyBytes = 64 << 20
        /// Largest response body passed back (a stream cut past it).
        public var maxResponseBodyBytes = 1 << 30
        /// How long connecting to a dev server may take.
        public var connectTimeout: Duration = .seconds(3)
        /// How long a dev server may take to start answering (a first build can be slow).
        public var responseHeadTimeout: Duration = .seconds(60)
        /// How long a response body may stay silent.
        public var readTimeout: Duration = .seconds(120)
        /// How long a browser connection may idle between requests.
        public var idleTimeout: Duration = .seconds(60)
        /// How long a new connection has to send its first request head.
        public var requestHeadTimeout: Duration = .seconds(10)

        public init() {}
    }

    /// Where and how the previews listen.
    public struct Configuration: Sendable {
        public var host: String
        /// The preview port (tickets); 0: any free port.
        public var port: Int
        /// The preview origins' ports, one listener each; 0s: any free ports.
        public var originPorts: [Int]
        /// The TLS context for each new connection, when the bridge serves TLS.
        public var tls: (@Sendable () -> NIOSSLContext)?
        public var limits = Limits()
        /// How often the sessions' devices are checked (1 s: a revocation ends a preview within 2 s).
        public var checkInterval: Duration = .seconds(1)

        public init(host: String, port: Int, originPorts: [Int], tls: (@Sendable () -> NIOSSLContext)? = nil) {
            self.host = host
            self.port = port
            self.originPorts = originPorts
            self.tls = tls
        }
    }

    private let configuration: Configuration
    private let previews: Previews
    private let logger: Logger
    private let refusedDevices: @Sendable (Set<String>) async -> Set<String>

    /// - Parameters:
    ///   - previews: what the hub's requests use; told the port once the listener is bound.
    ///   - refusedDevices: of these device ids, those that may no longer preview (revoked, unknown, or without
    ///     the `operate` scope); asked every ``Configuration/checkInterval``.
    public init(
        configuration: Configuration, previews: Previews, logger: Logger,
        refusedDevices: @escaping @Sendable (Set<String>) async -> Set<String>
    ) {
        self.configuration = configuration
        self.previews = previews
        self.logger = logger
        self.refusedDevices = refusedDevices
    }

    public var description: String { "PreviewProxy" }

    public func run() async throws {
        var clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: TimeAmount(configuration.limits.connectTimeout), read: TimeAmount(configuration.limits.readTimeout)),
            decompression: .disabled)
        clientConfiguration.connectionPool.idleTimeout = .seconds(30)
        clientConfiguration.httpVersion = .http1Only
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        let configuration = self.configuration
        let secure = configuration.tls != nil
        let (previews, logger) = (self.previews, self.logger)
        let door = listener(
            PreviewDoor(previews: previews, secure: secure, logger: logger), port: configuration.port, upgrades: false
        ) { port in
            previews.previewListening(port: port)
            logger.notice(
                "Preview port listening", metadata: ["bridge.listen.host": "\(configuration.host)", "bridge.preview.port": "\(port)"])
        }
        let origin = PreviewResponder(previews: previews, client: client, limits: configuration.limits, secure: secure, logger: logger)
        let origins = configuration.originPorts.map { port in
            listener(origin, port: port, upgrades: true) { port in
                previews.originListening(port: port)
                logger.debug("Preview origin listening", metadata: ["bridge.preview.origin": "\(port)"])
            }
        }
        let watcher = PreviewSessionWatcher(
            access: previews.access, interval: configuration.checkInterval, logger: logger, refused: refusedDevices)
        let listeners: [any Service] = [door] + origins + [watcher]
        let services = listeners.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
        let group = ServiceGroup(configuration: .init(services: services, logger: logger))
        do {
            try await withGracefulShutdownHandler {
                try await group.run()
            } onGracefulShutdown: {
                Task { await group.triggerGracefulShutdown() }
            }
        } catch {
            try? await client.shutdown()
            throw error
        }
        try? await client.shutdown()
    }

    /// One listener on `port` answering with `responder`; `listening` is told the bound port.
    private func listener<Responder: HTTPResponder>(
        _ responder: Responder, port: Int, upgrades: Bool, listening: @escaping @Sendable (Int) -> Void
    ) -> any Service where Responder.Context == PreviewRequestContext {
        let configuration = self.configuration
        let previews = self.previews
        return Application(
            responder: responder,
            server: HTTPServerBuilder { responder in
                PreviewChannel(
                    responder: responder, previews: previews, upgrades: upgrades, tls: configuration.tls, limits: configuration.limits)
            },
            configuration: .init(address: .hostname(configuration.host, port: port), serverName: nil),
            onServerRunning: { channel in listening(channel.localAddress?.port ?? port) },
            logger: logger
        )
    }
}
