import AsyncHTTPClient
import BridgePreview
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// The preview origin: a second listener of the bridge (the main port + 1 by default, same addresses and TLS)
/// that serves nothing of the bridge (no app, no API, no credentials), only the ticket exchange and, to a
/// browser holding a live session's cookie, the session's dev server on loopback. A `Service`: it runs the
/// listener and the session watcher, and ends both on graceful shutdown.
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

    /// Where and how the preview origin listens.
    public struct Configuration: Sendable {
        public var host: String
        /// 0: any free port.
        public var port: Int
        /// The TLS context for each new connection, when the bridge serves TLS.
        public var tls: (@Sendable () -> NIOSSLContext)?
        public var limits = Limits()
        /// How often the sessions' devices are checked (1 s: a revocation ends a preview within 2 s).
        public var checkInterval: Duration = .seconds(1)

        public init(host: String, port: Int, tls: (@Sendable () -> NIOSSLContext)? = nil) {
            self.host = host
            self.port = port
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
        let access = previews.access
        let responder = PreviewResponder(
            access: access, client: client, limits: configuration.limits, secure: configuration.tls != nil, logger: logger)
        let server = HTTPServerBuilder { responder in
            PreviewChannel(responder: responder, access: access, tls: configuration.tls, limits: configuration.limits)
        }
        let previews = self.previews
        let logger = self.logger
        let app = Application(
            responder: responder,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                previews.previewListening(port: port)
                logger.notice(
                    "Preview origin listening", metadata: ["bridge.listen.host": "\(configuration.host)", "bridge.preview.port": "\(port)"])
            },
            logger: logger
        )
        let watcher = PreviewSessionWatcher(access: access, interval: configuration.checkInterval, logger: logger, refused: refusedDevices)
        let group = ServiceGroup(configuration: .init(services: [.init(service: app), .init(service: watcher)], logger: logger))
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
}
