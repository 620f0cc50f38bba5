/// How many notifications each linked machine may send through this bridge: a token bucket per machine
/// (``LinkBudget/notificationBurst`` at once, then one per ``LinkBudget/notificationInterval``), so a linked bridge
/// that floods approvals cannot buzz every phone without end, nor queue work for the notification side without
/// bound. A value type with no I/O; time is given.
struct RelayNotices {
    private var buckets: [String: (tokens: Double, at: ContinuousClock.Instant)] = [:]
    /// Notices refused so far (for the metrics and the tests).
    private(set) var refused = 0

    /// Whether `machine` may send one more notification at `now`; takes a token when it may.
    mutating func allow(_ machine: String, budget: LinkBudget, now: ContinuousClock.Instant) -> Bool {
        let burst = Double(max(1, budget.notificationBurst))
        let interval = budget.notificationInterval.seconds
        var bucket = buckets[machine] ?? (burst, now)
        if interval > 0 {
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.at).seconds / interval)
        }
        bucket.at = now
        let allowed = bucket.tokens >= 1
        if allowed { bucket.tokens -= 1 } else { refused += 1 }
        buckets[machine] = bucket
        return allowed
    }

    /// The machine was unlinked.
    mutating func forget(machine: String) {
        buckets[machine] = nil
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    fileprivate var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
