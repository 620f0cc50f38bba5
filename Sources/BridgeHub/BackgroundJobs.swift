/// The hub's background work with an owner: a job handed to ``start(_:)`` runs as a child task of the hub's
/// `run()`, which cancels what is still running and waits for it when the hub stops. Jobs handed over before
/// `run()` starts wait for it; jobs handed over after it ended do not run.
final class BackgroundJobs: Sendable {
    typealias Job = @Sendable () async -> Void

    private let stream: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Job.self)
    }

    /// Hands `job` to the owner; false when the owner has stopped (the job will not run).
    @discardableResult
    func start(_ job: @escaping Job) -> Bool {
        if case .terminated = continuation.yield(job) { return false }
        return true
    }

    /// No more jobs: ``run(while:)`` cancels the ones still running and returns once they have ended.
    func finish() {
        continuation.finish()
    }

    /// Runs `body` (the hub's main loop) and every job as child tasks until `body` returns; then cancels and
    /// awaits the jobs still running.
    func run(while body: @escaping @Sendable () async -> Void) async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                await body()
                self.finish()
            }
            for await job in stream {
                group.addTask { await job() }
            }
            group.cancelAll()
        }
    }
}
