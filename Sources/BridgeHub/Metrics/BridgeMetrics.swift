import BridgeProtocol
import CoreMetrics
import Foundation
import Metrics

/// The bridge's counters and gauges, on swift-metrics (exported by `/metrics` through swift-prometheus).
///
/// The places that count call ``shared``, whose metrics come from the global `MetricsSystem` factory: `serve`
/// bootstraps it with a `PrometheusMetricsFactory` before anything counts; without a bootstrap (tests) they are
/// no-ops. Tests that check values make their own instance with their own factory.
public final class BridgeMetrics: Sendable {
    /// The process-wide metrics. Created on first use, so bootstrap `MetricsSystem` first.
    public static let shared = BridgeMetrics(factory: MetricsSystem.factory)

    /// Open WebSocket connections (set at scrape time from the connection registry).
    public let connections: Gauge
    /// Handshakes by result (`ok`, `unauthorized`, `rate_limited`, `version_unsupported`).
    private let handshakes: [String: Counter]
    /// Events (and approval messages) the hub numbered and relayed to subscribers.
    public let eventsRelayed: Counter
    /// Times codex was restarted after it stopped.
    public let codexRestarts: Counter
    /// Approvals waiting for an answer (set at scrape time from the hub).
    public let approvalsPending: Gauge
    /// Threads with a running turn (set at scrape time from the hub).
    public let threadsRunning: Gauge
    /// Time from an approval request to its answer.
    public let approvalDecision: Metrics.Timer
    /// Size in bytes of the database that holds the event journal (set at scrape time).
    public let journalBytes: Gauge

    /// Web Push deliveries by outcome (`delivered`, `gone`, `failed`) and ntfy/webhook posts (`notified`,
    /// `notify_failed`).
    private let pushes: [String: Counter]
    /// `POST /push/action` answers: `answered` or `refused`.
    private let pushActions: [String: Counter]

    public static let pushOutcomes = ["delivered", "gone", "failed", "notified", "notify_failed"]

    /// The handshake results that are counted; anything else counts as `unauthorized`.
    public static let handshakeResults = ["ok", "unauthorized", "rate_limited", "version_unsupported"]

    /// Metrics made by `factory` (tests pass a `PrometheusMetricsFactory` over their own registry).
    public init(factory: any MetricsFactory) {
        connections = Gauge(label: "codex_bridge_connections", dimensions: [], factory: factory)
        var handshakes: [String: Counter] = [:]
        for result in Self.handshakeResults {
            handshakes[result] = Counter(label: "codex_bridge_handshakes_total", dimensions: [("result", result)], factory: factory)
        }
        self.handshakes = handshakes
        eventsRelayed = Counter(label: "codex_bridge_events_relayed_total", dimensions: [], factory: factory)
        codexRestarts = Counter(label: "codex_bridge_codex_restarts_total", dimensions: [], factory: factory)
        approvalsPending = Gauge(label: "codex_bridge_approvals_pending", dimensions: [], factory: factory)
        threadsRunning = Gauge(label: "codex_bridge_threads_running", dimensions: [], factory: factory)
        approvalDecision = Metrics.Timer(
            label: "codex_bridge_approval_decision_seconds", dimensions: [], preferredDisplayUnit: .seconds, factory: factory)
        journalBytes = Gauge(label: "codex_bridge_journal_bytes", dimensions: [], factory: factory)
        pushes = Dictionary(
            uniqueKeysWithValues: Self.pushOutcomes.map {
                ($0, Counter(label: "codex_bridge_pushes_total", dimensions: [("outcome", $0)], factory: factory))
            })
        pushActions = Dictionary(
            uniqueKeysWithValues: ["answered", "refused"].map {
                ($0, Counter(label: "codex_bridge_push_actions_total", dimensions: [("result", $0)], factory: factory))
            })
    }

    /// Counts one push or notification by `outcome` (one of ``pushOutcomes``).
    public func pushed(_ outcome: String) {
        pushes[outcome]?.increment()
    }

    /// Counts one `POST /push/action`: answered, or refused.
    public func pushAction(answered: Bool) {
        pushActions[answered ? "answered" : "refused"]?.increment()
    }

    /// Counts one handshake with `result` (one of ``handshakeResults``).
    public func handshake(_ result: String) {
        (handshakes[result] ?? handshakes["unauthorized"])?.increment()
    }

    /// Counts the handshake a `helloAck` concludes: `ok`, or its error code.
    public func handshake(_ ack: HelloAck) {
        handshake(ack.ok ? "ok" : ack.error?.code.rawValue ?? "unauthorized")
    }

    /// Counts one event the hub relayed.
    public func eventRelayed() {
        eventsRelayed.increment()
    }

    /// Counts one codex restart.
    public func codexRestarted() {
        codexRestarts.increment()
    }

    /// Records how long an approval waited for its answer.
    public func approvalDecided(after duration: Duration) {
        approvalDecision.recordNanoseconds(
            Int64(clamping: duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000))
    }
}
