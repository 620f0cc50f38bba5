import Testing

@testable import BridgeClient

/// A deterministic generator (SplitMix64), so jitter is tested over many draws reproducibly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct ReconnectBackoffTests {
    @Test func nominalScheduleDoublesToTheCap() {
        let backoff = ReconnectBackoff()
        #expect((0..<8).map { backoff.nominalDelay(forAttempt: $0) } == [1, 2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) })
    }

    @Test func jitterStaysWithinQuarter() {
        let backoff = ReconnectBackoff()
        #expect(backoff.delay(forAttempt: 0, unitRandom: 0) == .milliseconds(750))
        #expect(backoff.delay(forAttempt: 0, unitRandom: 1) == .milliseconds(1250))
        #expect(backoff.delay(forAttempt: 10, unitRandom: 0) == .milliseconds(22_500))
        #expect(backoff.delay(forAttempt: 10, unitRandom: 1) == .milliseconds(37_500))
        #expect(backoff.delayRange(forAttempt: 2) == .seconds(3) ... .seconds(5))

        var generator = SeededGenerator(state: 42)
        var seen = Set<Duration>()
        for _ in 0..<200 {
            var schedule = ReconnectBackoff(maxAttempts: 8)
            for attempt in 0..<8 {
                let delay = schedule.next(using: &generator)!
                #expect(schedule.delayRange(forAttempt: attempt).contains(delay))
                seen.insert(delay)
            }
        }
        #expect(seen.count > 100, "jitter varies the delays")
    }

    @Test func boundedAttemptsAndReset() {
        var backoff = ReconnectBackoff(maxAttempts: 3)
        #expect(backoff.next() != nil && backoff.next() != nil && backoff.next() != nil)
        #expect(backoff.next() == nil)
        #expect(backoff.attempt == 3)
        backoff.reset()
        let first = backoff.next()!
        #expect(ReconnectBackoff().delayRange(forAttempt: 0).contains(first))
    }
}
