import BridgeHub
import BridgeStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Prometheus
import Testing

@testable import BridgeServer

/// `GET /metrics` in-process: the real route, bearer check and Prometheus registry; behind ``HubGauges`` a
/// stand-in with fixed counts.
@Suite struct MetricsRouteTests {
    struct FixedGauges: HubGauges {
        func metricsSnapshot() async -> (approvalsPending: Int, threadsRunning: Int) { (3, 2) }
    }

    @Test func theExpositionNeedsACredentialAndReadsTheGaugesAtScrapeTime() async throws {
        let fixture = try await RouteFixture()
        let registry = PrometheusCollectorRegistry()
        let journal = fixture.directory.appendingPathComponent("journal")
        try Data(count: 1234).write(to: journal)
        let route = MetricsRoute(
            registry: registry, metrics: BridgeMetrics(factory: MetricsRoute.factory(registry: registry)),
            connections: ConnectionRegistry(),
            gauges: FixedGauges(), journalFiles: [journal, fixture.directory.appendingPathComponent("absent")])
        let app = fixture.application { $0.metrics = route }
        try await app.test(.router) { client in
            for headers: HTTPFields in [[:], RouteFixture.bearer("not-a-token"), [.authorization: "Basic dXNlcjpwYXNz"]] {
                let response = try await client.execute(uri: "/metrics", method: .get, headers: headers)
                #expect(response.status == .unauthorized && RouteFixture.code(response) == "unauthorized")
                #expect(!String(buffer: response.body).contains("codex_bridge_"))
            }
            for token in [fixture.watcher.deviceToken, fixture.secret] {
                let response = try await client.execute(uri: "/metrics", method: .get, headers: RouteFixture.bearer(token))
                #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                let text = String(buffer: response.body)
                for line in ["codex_bridge_approvals_pending 3", "codex_bridge_threads_running 2", "codex_bridge_journal_bytes 1234"] {
                    #expect(text.contains(line), "\(line) in \(text)")
                }
            }
            #expect(
                try await client.execute(uri: "/metrics", method: .post, headers: RouteFixture.bearer(fixture.secret)).status == .notFound)
        }
    }
}
