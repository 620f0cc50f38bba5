import Foundation
import GRDB
import Logging
import Testing

@testable import BridgeStore

/// The signal serve's watchers wait on instead of a 1 s clock (issue 45 item 4): a change between a look and the
/// next wait is never missed, a deadline ends a wait, and cancelling a waiter ends its wait.
@Suite(.timeLimit(.minutes(1))) struct StateChangesTests {
    @Test func aWaiterBehindTheGenerationReturnsAtOnce() async {
        let changes = StateChanges()
        let seen = changes.generation
        changes.changed()  // between the look and the wait
        #expect(await changes.wait(after: seen) == seen + 1)
    }

    @Test func everyWaiterWakesOnAChange() async {
        let changes = StateChanges()
        let seen = changes.generation
        await withTaskGroup(of: UInt64.self) { group in
            for _ in 0..<3 { group.addTask { await changes.wait(after: seen) } }
            // Waiters register in their own time: keep changing until all three returned.
            var woken = 0
            while woken < 3 {
                changes.changed()
                if await group.next() != nil { woken += 1 }
            }
        }
        #expect(changes.generation > seen)
    }

    @Test func aDeadlineEndsTheWaitWithoutAChange() async {
        let changes = StateChanges()
        let seen = changes.generation
        let start = ContinuousClock.now
        #expect(await changes.wait(after: seen, until: start.advanced(by: .milliseconds(50))) == seen)
        #expect(ContinuousClock.now - start >= .milliseconds(50))
    }

    @Test func aCancelledWaiterReturns() async {
        let changes = StateChanges()
        let waiter = Task { await changes.wait(after: changes.generation) }
        waiter.cancel()
        #expect(await waiter.value == changes.generation)
    }

    @Test func aWriteThroughWriteImmediateFiresTheSignal() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let database = try BridgeDatabase(paths: state.paths, logger: .init(label: "test"))
        let seen = database.changes.generation
        let registry = DeviceRegistry(database: database, logger: .init(label: "test"))
        _ = try await registry.mintPairingCode(ttl: .seconds(60))  // not a trust change: no signal
        #expect(database.changes.generation == seen)
        _ = try await database.writeImmediate { _ in }
        #expect(database.changes.generation == seen + 1)
    }

    @Test func externalVersionMovesOnlyForAnotherConnectionsCommit() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let database = try BridgeDatabase(paths: state.paths, logger: .init(label: "test"))
        let before = try await database.externalVersion()
        _ = try await database.writeImmediate { db in try db.execute(sql: "DELETE FROM pairingCode") }
        #expect(try await database.externalVersion() == before)
        let other = try BridgeDatabase(paths: state.paths, logger: .init(label: "other"))  // as a CLI process would
        _ = try await other.writeImmediate { db in try db.execute(sql: "DELETE FROM pairingCode") }
        #expect(try await database.externalVersion() != before)
    }
}
