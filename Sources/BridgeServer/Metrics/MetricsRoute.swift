import BridgeHub
import BridgeProtocol
import BridgeStore
import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus

/// `GET /metrics`: the Prometheus text exposition, for a client with a device token or the shared secret as
/// `Authorization: Bearer` (``BearerAuthMiddleware``: 401 otherwise, 429 once the address failed too often; a
/// device needs the scope `observe`, else 403). Gauges that mirror state (connections, pending approvals, running
/// threads, journal size) are read at scrape time.
public struct MetricsRoute: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let metrics: BridgeMetrics
    private let connections: ConnectionRegistry?
    private let gauges: (any HubGauges)?
    private let journalFiles: [URL]

    /// - Parameters:
    ///   - registry: the collector registry behind the `PrometheusMetricsFactory` that `metrics` was made with.
    ///   - connections: counted into `codex_bridge_connections`.
    ///   - gauges: pending approvals and running threads (the hub's) become gauges.
    ///   - journalFiles: the files holding the event journal (the database and its WAL); their size in bytes
    ///     becomes `codex_bridge_journal_bytes` when any exists.
    package init(
        registry: PrometheusCollectorRegistry, metrics: BridgeMetrics = .shared, connections: ConnectionRegistry? = nil,
        gauges: (any HubGauges)? = nil,
        journalFiles: [URL] = []
    ) {
        self.registry = registry
        self.metrics = metrics
        self.connections = connections
        self.gauges = gauges
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

    /// Adds `GET /metrics` to `router`, a group behind ``BearerAuthMiddleware`` (a device token or the shared
    /// secret; pairing codes are not accepted: a scrape never pairs a device).
    public func addRoutes(to router: some RouterMethods<BridgeRequestContext>) {
        router.get("/metrics") { _, context in
            if let refusal = context.refusal(unless: .observe, for: "GET /metrics") { return refusal.response }
            return await self.respond()
        }
    }

    /// The exposition, with the gauges read now.
    func respond() async -> Response {
        await refreshGauges()
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }

    private func refreshGauges() async {
        if let connections { metrics.connections.record(connections.count) }
        if let gauges {
            let (pending, running) = await gauges.metricsSnapshot()
            metrics.approvalsPending.record(pending)
            metrics.threadsRunning.record(running)
        }
        let sizes = journalFiles.compactMap { try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? NSNumber }
        if !sizes.isEmpty { metrics.journalBytes.record(sizes.reduce(0) { $0 + $1.int64Value }) }
    }
}
