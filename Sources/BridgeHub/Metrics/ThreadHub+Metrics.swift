extension ThreadHub {
    /// Pending approvals and threads with a running turn, for `/metrics`.
    package func metricsSnapshot() -> (approvalsPending: Int, threadsRunning: Int) {
        (approvals.count, threads.values.count { $0.runningTurnId != nil })
    }
}
