import Synchronization

/// Counts failed authentications per remote address in a sliding window. Once an address reaches the
/// limit it is refused until its oldest failure leaves the window; other addresses are unaffected.
///
/// Memory is bounded: at most `maxTrackedAddresses` addresses are kept (the stalest are dropped first).
public final class AuthRateLimiter: Sendable {
    private struct State {
        var failures: [String: [ContinuousClock.Instant]] = [:]
    }

    private let limit: Int
    private let window: Duration
    private let maxTrackedAddresses: Int
    private let state = Mutex(State())

    /// The limiter a server with `configuration` uses (share it with ``MetricsRoute``).
    public convenience init(configuration: BridgeServerConfiguration) {
        self.init(limit: configuration.authFailureLimit, window: configuration.authFailureWindow)
    }

    init(limit: Int, window: Duration, maxTrackedAddresses: Int = 10_000) {
        self.limit = limit
        self.window = window
        self.maxTrackedAddresses = maxTrackedAddresses
    }

    /// Whether `address` has used up its failures for now.
    func isLimited(_ address: String, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            guard var times = state.failures[address] else { return false }
            times.removeAll { now - $0 >= window }
            state.failures[address] = times.isEmpty ? nil : times
            return times.count >= limit
        }
    }

    /// Starts an authentication attempt from `address`: false when the address is limited. Otherwise the
    /// attempt counts as a failure until ``succeeded(_:)`` takes it back, so that concurrent attempts cannot
    /// all pass the check before any of them fails.
    func beginAttempt(_ address: String, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            var times = state.failures[address, default: []]
            times.removeAll { now - $0 >= window }
            guard times.count < limit else {
                state.failures[address] = times
                return false
            }
            times.append(now)
            state.failures[address] = times
            if state.failures.count > maxTrackedAddresses {
                let stalest = state.failures.min { ($0.value.last ?? now) < ($1.value.last ?? now) }
                if let stalest, stalest.key != address { state.failures[stalest.key] = nil }
            }
            return true
        }
    }

    /// The attempt begun with ``beginAttempt(_:now:)`` succeeded: it no longer counts.
    func succeeded(_ address: String) {
        state.withLock { state in
            guard var times = state.failures[address], !times.isEmpty else { return }
            times.removeLast()
            state.failures[address] = times.isEmpty ? nil : times
        }
    }

    /// Records one failed authentication from `address`.
    func recordFailure(_ address: String, now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            var times = state.failures[address, default: []]
            times.removeAll { now - $0 >= window }
            times.append(now)
            if times.count > limit { times.removeFirst(times.count - limit) }
            state.failures[address] = times
            if state.failures.count > maxTrackedAddresses {
                let stalest = state.failures.min { ($0.value.last ?? now) < ($1.value.last ?? now) }
                if let stalest { state.failures[stalest.key] = nil }
            }
        }
    }
}
