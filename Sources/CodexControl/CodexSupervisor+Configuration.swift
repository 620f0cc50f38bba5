extension CodexSupervisor {
    /// How the supervisor finds, starts, watches and restarts Codex.
    public struct Configuration: Sendable {
        /// Finds the `codex` executable before every start (so installing Codex later needs no bridge restart).
        public var locator: CodexLocator
        /// Arguments (`-c KEY=VALUE`), environment and limits of each child.
        public var server: CodexAppServer.Options
        /// The first delay before a restart.
        public var initialBackoff: Duration
        /// The delay doubles per failed start up to this.
        public var maxBackoff: Duration
        /// A child that lived this long resets the delay to ``initialBackoff``.
        public var healthyUptime: Duration
        /// How often the watchdog sends a cheap request (`thread/list {limit:1}`).
        public var watchdogInterval: Duration
        /// How long one watchdog request may take.
        public var watchdogTimeout: Duration
        /// Consecutive unanswered watchdog requests after which the child is restarted. (A child that is only
        /// waiting for our consumer to catch up is never counted as unresponsive.)
        public var watchdogFailures: Int
        /// A shared app-server (``CodexAppServer/Options/socketPath``) that cannot be reached for this long is
        /// reported unavailable: requests then fail at once with `.unavailable` instead of waiting.
        public var unavailableAfter: Duration
        /// How many events may wait for the consumer of ``CodexSupervisor/events`` before Codex is slowed down.
        public var eventCapacity: Int

        /// Creates a configuration; every parameter but the locator has a production default.
        public init(
            locator: CodexLocator = CodexLocator(),
            server: CodexAppServer.Options = .init(),
            initialBackoff: Duration = .milliseconds(500),
            maxBackoff: Duration = .seconds(30),
            healthyUptime: Duration = .seconds(60),
            watchdogInterval: Duration = .seconds(15),
            watchdogTimeout: Duration = .seconds(10),
            watchdogFailures: Int = 2,
            eventCapacity: Int = 4096,
            unavailableAfter: Duration = .seconds(3)
        ) {
            self.unavailableAfter = unavailableAfter
            self.locator = locator
            self.server = server
            self.initialBackoff = initialBackoff
            self.maxBackoff = maxBackoff
            self.healthyUptime = healthyUptime
            self.watchdogInterval = watchdogInterval
            self.watchdogTimeout = watchdogTimeout
            self.watchdogFailures = watchdogFailures
            self.eventCapacity = eventCapacity
        }
    }
}
