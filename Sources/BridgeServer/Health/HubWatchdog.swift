import BridgeHub
import ServiceLifecycle
import Synchronization

/// Notices a hub that stopped answering, for `/healthz`: asks the hub (``RequestHandling/isResponsive()``) every
/// `interval` and remembers when it last answered. `/healthz` reads that without waiting on the hub, and
/// answers 503 once the last answer is older than `deadline`, so a supervisor notices a stuck bridge while the
/// event loop itself still serves HTTP.
final class HubWatchdog: Service, CustomStringConvertible {
    let description = "HubWatchdog"
    private let handler: any RequestHandling
    private let interval: Duration
    private let deadline: Duration
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    /// Nanoseconds after `start` at which the hub last answered.
    private let lastAnswer = Atomic<Int64>(0)

    init(handler: any RequestHandling, interval: Duration = .milliseconds(500), deadline: Duration = .seconds(2)) {
        self.handler = handler
        self.interval = interval
        self.deadline = deadline
        self.start = clock.now
    }

    /// Whether the hub answered within the deadline.
    var isResponsive: Bool {
        let answered = start + .nanoseconds(lastAnswer.load(ordering: .relaxed))
        return clock.now - answered <= deadline
    }

    func run() async throws {
        // Stops at graceful shutdown (the sleep is cancelled with the service's task).
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            if await handler.isResponsive() {
                let elapsed = clock.now - start
                lastAnswer.store(
                    elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000, ordering: .relaxed)
            }
            try? await Task.sleep(for: interval, tolerance: .milliseconds(100))
        }
    }
}
