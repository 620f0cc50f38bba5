import Logging
import Synchronization

/// Collects log lines so a test can check no secret is logged.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])
    var all: String { lines.withLock { $0.joined(separator: "\n") } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(sink: self) }
    }

    private struct Handler: LogHandler {
        let sink: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            sink.lines.withLock { $0.append("\(event.message) \(all.map { "\($0)=\($1)" }.joined(separator: " "))") }
        }
    }
}
