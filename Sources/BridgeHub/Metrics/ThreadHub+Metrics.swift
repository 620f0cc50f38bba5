extension ThreadHub {
    /// Pending approvals and threads with a running turn, for `/metrics`.
    package func metricsSnapshot() -> (approvalsPending: Int, threadsRunning: Int) {
        (desks.approvals.count, book.runningCount)
    }
}
