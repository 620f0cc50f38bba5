import BridgeStore
import Foundation
import Testing

/// Issue 44, item 2: what a linked machine relays counts against its own share of the journal's size limit, so a
/// link that floods cannot make the pruner cut this bridge's own messages; a client that gets relayed messages
/// hears of the hole as a gap.
@Suite struct JournalMachineShareTests {
    private func entry(_ seq: Int64, machine: String?, bytes: Int = 100) -> JournalEntry {
        JournalEntry(
            seq: seq, threadId: machine.map { "t-\($0)" } ?? "home", kind: "event", type: "item/agentMessage/delta",
            text: String(repeating: "x", count: bytes), machine: machine, remoteSeq: machine == nil ? nil : seq)
    }

    @Test func aFloodingMachineLosesItsOldestNeverTheHomesOwn() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let journal = EventJournal(
            database: try BridgeDatabase(paths: state.paths, logger: CapturedLogs().logger), logger: CapturedLogs().logger)
        // 100 of the home's own, then 2,000 of a flooding machine and 50 of a quiet one, interleaved at the end.
        let owners =
            Array(repeating: String?.none, count: 100) + Array(repeating: "flood", count: 2000)
            + Array(repeating: "quiet", count: 50)
        let batch = owners.enumerated().map { entry(Int64($0.offset + 1), machine: $0.element) }
        try journal.append(contentsOf: batch)
        let share: Int64 = 50_000  // 500 rows of 100 bytes
        let deleted = try await journal.pruneRelayed(share: share)
        #expect(deleted == 1500)
        let bytes = try journal.relayedBytes()
        #expect(bytes["flood"] == share && bytes["quiet"] == 5000)
        let home = try await journal.readFrames(after: 0, relayed: false, limit: 10_000)
        #expect(home.count == 100, "the home's own are all there")
        #expect(try journal.relayCursor(machine: "flood") == 2100, "the link's cursor is kept")
        // A fleet client behind the hole hears of a gap; one that gets no relayed messages does not.
        #expect(try journal.prunedThrough(relayed: true) == 1600 && journal.prunedThrough(relayed: false) == 0)
        #expect(try await journal.pruneRelayed(share: share) == 0)
        // The total limit still holds afterwards, the oldest first (now the home's own are oldest).
        _ = try await journal.prune(maxAge: 3600, maxBytes: 60_000)
        #expect(try journal.relayedBytes()["flood"] ?? 0 <= 60_000)
    }
}
