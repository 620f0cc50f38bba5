import BridgeProtocol
import BridgeStore
import Foundation
import Testing

@testable import BridgeHub

/// A linked machine's message is journaled once at the home bridge (issue 45 item 2), whatever hands it to the
/// hub twice: a link replaced while its last batch was still being relayed (the new one resumes from the journal's
/// cursor, read before that batch was written), or a linked bridge that sends a seq again. About 0.1 s.
@Suite(.timeLimit(.minutes(1))) struct RelayOnceTests {
    static func events(_ seqs: ClosedRange<Int64>, thread: String = "remote-t") -> [RelayedFrame] {
        seqs.map { seq in
            RelayedFrame(
                message: .event(ThreadEvent(seq: seq, threadId: thread, turnId: "u", type: "item/agentMessage/delta", data: .null)),
                eventDataJSON: #"{"delta":"d\#(seq)"}"#)
        }
    }

    /// Regression: two overlapping hand-overs of seqs 1...5 and 3...8 journaled 3, 4 and 5 twice.
    @Test func aSeqRelayedAgainIsNotJournaledAgain() async throws {
        let harness = try await HubHarness()
        let machine = MachineRef(id: "linked", name: "linked")
        let first = await harness.hub.relay(Self.events(1...5), from: machine)
        let again = await harness.hub.relay(Self.events(3...8), from: machine)
        #expect(first.relayed == 5 && again.relayed == 3)
        let rows = try await harness.storage.journal.readFrames(after: 0, limit: 100)
        #expect(rows.count == 8, "\(rows.count) rows")
        #expect(try harness.storage.journal.relayCursor(machine: "linked") == 8)
        // Another machine's seqs are its own.
        let other = await harness.hub.relay(Self.events(1...2, thread: "other-t"), from: MachineRef(id: "other", name: "other"))
        #expect(other.relayed == 2)
    }

    /// The cursor survives a restart of the home bridge: it is the journal's.
    @Test func aRestartedHomeKeepsTheCursorOfTheJournal() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relay-once-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let machine = MachineRef(id: "linked", name: "linked")
        do {
            let harness = try await HubHarness(directory: directory)
            _ = await harness.hub.relay(Self.events(1...4), from: machine)
        }
        let harness = try await HubHarness(directory: directory)
        let again = await harness.hub.relay(Self.events(2...6), from: machine)
        #expect(again.relayed == 2)
        #expect(try await harness.storage.journal.readFrames(after: 0, limit: 100).count == 6)
    }
}
