/// The hub's two gauges `GET /metrics` reads at scrape time: pending approvals and threads with a running
/// turn. The route takes this, not the hub, so it is tested in-process without one.
package protocol HubGauges: Sendable {
    func metricsSnapshot() async -> (approvalsPending: Int, threadsRunning: Int)
}
