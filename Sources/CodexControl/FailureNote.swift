import Synchronization

/// The first failure message noted by any of several concurrent tasks.
final class FailureNote: Sendable {
    private let storage = Mutex<String?>(nil)

    /// Keeps `message` unless one was noted before.
    func note(_ message: String) { storage.withLock { if $0 == nil { $0 = message } } }

    /// The first message noted, if any.
    var value: String? { storage.withLock { $0 } }
}
