import Logging
import Synchronization

/// Keeps log lines in memory so tests can look for them.
struct RecordingLogHandler: LogHandler {
    final class Store: Sendable {
        let lines = Mutex<[String]>([])

        var all: [String] { lines.withLock { $0 } }

        func contains(_ needle: String) -> Bool {
            all.contains { $0.contains(needle) }
        }
    }

    let store: Store
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.lines.withLock { $0.append("\(event.level): \(event.message)") }
    }

    static func logger() -> (Logger, Store) {
        let store = Store()
        return (Logger(label: "test") { _ in RecordingLogHandler(store: store) }, store)
    }
}
