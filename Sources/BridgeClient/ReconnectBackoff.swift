/// When to try again after a connection is lost: 1 s, doubling, capped at 30 s, each delay varied by ±25%
/// so clients of a restarted bridge do not all return at once, and a bounded number of attempts.
///
/// A plain value: ``next(using:)`` advances it, ``reset()`` starts over after a successful connection.
public struct ReconnectBackoff: Sendable, Hashable {
    /// The delay before the first attempt (before jitter).
    public var initialDelay: Duration
    /// The largest delay before jitter.
    public var maximumDelay: Duration
    /// The factor between consecutive delays.
    public var multiplier: Double
    /// The relative variation of each delay: 0.25 means a delay is between 75% and 125% of its nominal value.
    public var jitter: Double
    /// How many attempts ``next(using:)`` allows before it returns nil.
    public var maxAttempts: Int
    /// How many delays have been handed out since the last reset.
    public private(set) var attempt = 0

    public init(
        initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(30), multiplier: Double = 2,
        jitter: Double = 0.25, maxAttempts: Int = 10
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.multiplier = multiplier
        self.jitter = jitter
        self.maxAttempts = maxAttempts
    }

    /// The delay before attempt `index` (0-based) without jitter: `initial × multiplier^index`, at most the cap.
    public func nominalDelay(forAttempt index: Int) -> Duration {
        let initial = Self.seconds(initialDelay)
        let cap = Self.seconds(maximumDelay)
        var value = initial
        for _ in 0..<max(0, index) {
            value *= multiplier
            if value >= cap { break }
        }
        return .seconds(min(value, cap))
    }

    /// The range a jittered delay for attempt `index` falls in.
    public func delayRange(forAttempt index: Int) -> ClosedRange<Duration> {
        let nominal = Self.seconds(nominalDelay(forAttempt: index))
        return .seconds(nominal * (1 - jitter)) ... .seconds(nominal * (1 + jitter))
    }

    /// The delay for attempt `index` given a uniform random number in `0...1` (0 → the shortest, 1 → the longest).
    public func delay(forAttempt index: Int, unitRandom: Double) -> Duration {
        let nominal = Self.seconds(nominalDelay(forAttempt: index))
        let factor = 1 + jitter * (2 * min(max(unitRandom, 0), 1) - 1)
        return .seconds(nominal * factor)
    }

    /// The next delay, or nil when `maxAttempts` delays were already handed out.
    public mutating func next(using generator: inout some RandomNumberGenerator) -> Duration? {
        guard attempt < maxAttempts else { return nil }
        defer { attempt += 1 }
        return delay(forAttempt: attempt, unitRandom: Double.random(in: 0...1, using: &generator))
    }

    /// The next delay with the system random generator.
    public mutating func next() -> Duration? {
        var generator = SystemRandomNumberGenerator()
        return next(using: &generator)
    }

    /// Starts over at the initial delay (after a successful connection).
    public mutating func reset() { attempt = 0 }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
