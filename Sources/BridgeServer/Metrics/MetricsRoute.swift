import BridgeHub
import BridgeStore
import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus

/// `GET /metrics`: the Prometheus text exposition, for a client with a device token or the shared secret as
/// `Authorization: Bearer` (401 otherwise). Gauges that mirror state (connections, pending approvals, running
/// threads, journal size) are read at scrape time.
public struct MetricsRoute: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let sharedSecret: SharedSecretSource
    private let devices: DeviceRegistry?
    private let metrics: BridgeMetrics
    private let connections: ConnectionRegistry?
    private let hub: ThreadHub?
    private let journalFiles: [URL]
    private let rateLimiter: AuthRateLimiter?

    /// - Parameters:
    ///   - registry: the collector registry behind the `PrometheusMetricsFactory` that `metrics` was made with.
    ///   - sharedSecretFile: the shared secret, accepted as a Bearer token.
    ///   - devices: device tokens are accepted too (pairing codes are not: a scrape never pairs a device).
    ///   - connections: counted into `codex_bridge_connections`.
    ///   - hub: its pending approvals and running threads become gauges.
    ///   - journalFiles: the files holding the event journal (the database and its WAL); their size in bytes
    ///     becomes `codex_bridge_journal_bytes` when any exists.
    public init(
        registry: PrometheusCollectorRegistry, sharedSecretFile: URL, devices: DeviceRegistry?, metrics: BridgeMetrics = .shared,
        connections: ConnectionRegistry? = nil, hub: ThreadHub? = nil, journalFiles: [URL] = [],
        rateLimiter: AuthRateLimiter? = nil
    ) {
        self.rateLimiter = rateLimiter
        self.registry = registry
        self.sharedSecret = SharedSecretSource(url: sharedSecretFile)
        self.devices = devices
        self.metrics = metrics
        self.connections = connections
        self.hub = hub
        self.journalFiles = journalFiles
    }

    /// A factory whose approval-decision histogram has buckets for human answers (seconds to minutes).
    public static func factory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["codex_bridge_approval_decision_seconds"] = [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800].map {
            .seconds($0)
        }
        return factory
    }

    /// Adds `GET /metrics` to `router`; pass as `BridgeServer(extraRoutes:)`.
    public func addRoutes(to router: Router<BridgeRequestContext>) {
        router.get("/metrics") { request, context in
            await self.respond(authorization: request.headers[.authorization], remoteAddress: context.remoteAddress)
        }
    }

    /// The response for a scrape carrying `authorization` (pure apart from the authenticator and the gauges).
    func respond(authorization: String?, remoteAddress: String = "unknown") async -> Response {
        // A valid token always passes; failed checks count towards the same per-address limit as failed
        // handshakes, and a limited address gets 429.
        guard let header = authorization, let token = BridgeServer.bearerToken(header), await isAuthorized(token) else {
            if let rateLimiter {
                let limited = rateLimiter.isLimited(remoteAddress)
                rateLimiter.recordFailure(remoteAddress)
                if limited {
                    return Response(
                        status: .tooManyRequests, headers: [.contentType: "text/plain; charset=utf-8", .retryAfter: "60"],
                        body: .init(byteBuffer: ByteBuffer(string: "too many failed authentications from this address; try again later\n")))
                }
            }
            return Response(
                status: .unauthorized,
                headers: [.contentType: "text/plain; charset=utf-8", .wwwAuthenticate: #"Bearer realm="codex-bridge""#],
                body: .init(byteBuffer: ByteBuffer(string: "a device token or the shared secret is required (Authorization: Bearer)\n")))
        }
        await refreshGauges()
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }

    /// The shared secret or a device token that is not revoked. Never logs the token.
    private func isAuthorized(_ token: String) async -> Bool {
        if sharedSecret.matches(token) { return true }
        guard let devices else { return false }
        return (try? await devices.authenticate(deviceToken: token, address: nil)) != nil
    }

    private func refreshGauges() async {
        if let connections { metrics.connections.record(connections.count) }
        if let hub {
            let (pending, running) = await hub.metricsSnapshot()
            metrics.approvalsPending.record(pending)
            metrics.threadsRunning.record(running)
        }
        let sizes = journalFiles.compactMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? NSNumber }
        if !sizes.isEmpty { metrics.journalBytes.record(sizes.reduce(0) { $0 + $1.int64Value }) }
    }
}
