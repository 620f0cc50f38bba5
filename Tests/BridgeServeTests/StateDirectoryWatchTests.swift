import BridgeStore
import Foundation
import GRDB
import Logging
import Testing

@testable import BridgeServe

/// serve's watchers wake when another process changes its state, and only then (issue 45 item 4: the 1 s
/// re-reads of SQLite are gone): a commit by another connection and a rewritten file in the state directory fire
/// the database's signal; this process's own writes to the database do not.
@Suite(.timeLimit(.minutes(1))) struct StateDirectoryWatchTests {
    struct Watched {
        let root: URL
        let paths: StatePaths
        let database: BridgeDatabase
        let task: Task<Void, any Error>

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("state-watch-\(UUID().uuidString)")
            paths = StatePaths(configDirectory: root.appendingPathComponent("config"), stateDirectory: root.appendingPathComponent("state"))
            let logger = Logger(label: "watch") { _ in SwiftLogNoOpLogHandler() }
            database = try BridgeDatabase(paths: paths, logger: logger)
            let watch = StateDirectoryWatch(directory: paths.stateDirectory, database: database, logger: logger)
            task = Task { try await watch.run() }
        }

        func stop() {
            task.cancel()
            try? FileManager.default.removeItem(at: root)
        }

        /// Does `act` until the signal fires (the watch starts in its own time), at most 10 s; whether it fired.
        func fires(_ act: () async throws -> Void) async throws -> Bool {
            let end = ContinuousClock.now.advanced(by: .seconds(10))
            while ContinuousClock.now < end {
                let seen = database.changes.generation
                try await act()
                if await database.changes.wait(after: seen, until: .now.advanced(by: .milliseconds(500))) != seen { return true }
            }
            return false
        }
    }

    @Test func anotherProcesssCommitFiresTheSignal() async throws {
        let watched = try Watched()
        defer { watched.stop() }
        let other = try BridgeDatabase(paths: watched.paths, logger: .init(label: "cli"))
        #expect(try await watched.fires { _ = try await other.pool.write { db in try db.execute(sql: "DELETE FROM pairingCode") } })
    }

    @Test func aRewrittenSecretFileFiresTheSignal() async throws {
        let watched = try Watched()
        defer { watched.stop() }
        #expect(try await watched.fires { try Data(UUID().uuidString.utf8).write(to: watched.paths.tokenFile, options: .atomic) })
    }

    @Test func thisProcesssOwnJournalWritesDoNot() async throws {
        let watched = try Watched()
        defer { watched.stop() }
        // Once the watch runs (a file written fires it), a burst of writes through this process's own writer.
        #expect(try await watched.fires { try Data("x".utf8).write(to: watched.paths.stateDirectory.appendingPathComponent("probe")) })
        // The probe's later events (its close) may fire it again: on once it is quiet.
        var seen = watched.database.changes.generation
        while case let now = await watched.database.changes.wait(after: seen, until: .now.advanced(by: StateDirectoryWatch.settle)),
            now != seen
        {
            seen = now
        }
        for _ in 0..<50 {
            try await watched.database.pool.write { db in try db.execute(sql: "DELETE FROM pairingCode") }
        }
        let after = await watched.database.changes.wait(after: seen, until: .now.advanced(by: StateDirectoryWatch.settle * 3))
        #expect(after == seen)
    }
}
