/// Runs `operation`, throwing `CodexError.timeout(message)` when it takes longer than `duration`
/// (the operation is then cancelled). Caller cancellation cancels it too.
func withCodexTimeout<T: Sendable>(
    _ duration: Duration,
    _ message: @autoclosure () -> String,
    operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let timeoutError = CodexError.timeout(message())
    return try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: duration)
            throw timeoutError
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
