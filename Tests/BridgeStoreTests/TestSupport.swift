import Foundation
import GRDB
import Logging
import Synchronization

@testable import BridgeStore

/// A fresh state directory under the system temp dir, removed by `cleanup()`.
struct TemporaryState {
    let root: URL
    let paths: StatePaths

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-store-\(UUID().uuidString)")
        let state = root.appendingPathComponent("state")
        paths = StatePaths(configDirectory: root.appendingPathComponent("config"), stateDirectory: state)
    }

    func cleanup() {
        try? FileManager.default.removeItem(at: root)
    }

    /// The database as a bridge of an older schema left it: the migrations before `identifier`, in order.
    func database(before identifier: String) throws -> DatabasePool {
        try FileManager.default.createDirectory(at: paths.stateDirectory, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: paths.databaseFile.path)
        var migrator = DatabaseMigrator()
        for (id, migrate) in BridgeMigrations.all.prefix(while: { $0.0 != identifier }) { migrator.registerMigration(id, migrate: migrate) }
        try migrator.migrate(pool)
        return pool
    }
}

/// A mutable clock for expiry tests.
final class TestClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        current = Mutex(start)
    }

    var now: Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// Collects every log line (message and metadata) so tests can check that no secret is logged.
final class CapturedLogs: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var logger: Logger {
        var logger = Logger(label: "test") { _ in CapturingHandler(sink: self) }
        logger.logLevel = .trace
        return logger
    }
}

struct CapturingHandler: LogHandler {
    let sink: CapturedLogs
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        sink.append("\(event.level) \(event.message) \(merged)")
    }
}
