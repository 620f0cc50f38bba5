/// What the Swift tests wait with instead of a guessed time (issue 45 item 6): a condition, polled with backoff
/// (``eventually(_:timeout:_:)-(_,_,()->Bool)``), for what only shows in state (a socket, a process, a file, a
/// counter); a ``Gate`` for what a fake holds until the test lets it go; a ``ManualClock`` for the code's own
/// timeouts, where it takes a clock. One way to do each, for every test target.

/// How long a wait for something that should happen at once lasts before the test fails: a guard against a hang,
/// not a bound on speed (those are asserted apart). Generous, because the Swift tests run in parallel on the
/// cooperative pool's two threads beside tests that spawn codex and write SQLite files (a hub test that waited
/// 5 s saw nothing arrive in CI's run on 12-02, and passed alone in a second).
public let patience: Duration = .seconds(30)

/// A wait that ran out; its description says what was waited for, and how long.
public struct WaitedTooLong: Error, CustomStringConvertible {
    public let what: String
    public let timeout: Duration
    public var description: String { "waited \(timeout) for \(what)" }
}

/// Waits until `condition` holds, polling from 1 ms and backing off to 20 ms (a condition that holds at once
/// costs nothing; a long wait costs little CPU); throws ``WaitedTooLong`` naming `what` after `timeout`.
public func eventually(
    _ what: @autoclosure () -> String, timeout: Duration = patience, _ condition: () async throws -> Bool
) async throws {
    _ = try await eventually(what(), timeout: timeout) { try await condition() ? true : nil }
}

/// Waits until `value` gives a value, and returns it (see ``eventually(_:timeout:_:)-(_,_,()->Bool)``).
public func eventually<Value>(
    _ what: @autoclosure () -> String, timeout: Duration = patience, _ value: () async throws -> Value?
) async throws -> Value {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    var pause: Duration = .milliseconds(1)
    while true {
        if let value = try await value() { return value }
        guard clock.now < deadline else { throw WaitedTooLong(what: what(), timeout: timeout) }
        try await Task.sleep(for: pause)
        pause = min(pause * 2, .milliseconds(20))
    }
}
