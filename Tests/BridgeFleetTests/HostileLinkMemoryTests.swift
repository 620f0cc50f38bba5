import BridgeProtocol
import BridgeStore
import Eventually
import Foundation
import HostileBridge
import Synchronization
import Testing

@testable import BridgeFleet
@testable import BridgeHub

/// Issue 44, item 2: a linked bridge (a real WebSocket server on 127.0.0.1 that the test plays) floods the home
/// bridge (a real hub, journal and link). Before, caps counted messages and a message could be 16 MiB: 800 MiB
/// of events raised the home's memory by 725 MiB, and open approvals pinned 843 MiB. Now the link is held back
/// within its byte budget (``LinkMeter``), the process's memory stays well under what was sent, every event still
/// arrives, and open approvals beyond the link's budget close the link with `over_budget`, shown in the machine's
/// row and status. Seen failing before (a debug build): 607 MiB of growth for the 400 MiB flood, 286 MiB for the
/// 300 MiB of open approvals.
@Suite(.serialized, .timeLimit(.minutes(4))) struct HostileLinkMemoryTests {
    /// Samples the resident memory every 10 ms while `body` runs; returns the most it grew.
    static func peakGrowth(during body: () async throws -> Void) async rethrows -> Int {
        let base = HomeHarness.residentBytes()
        let peak = Mutex(base)
        let sampler = Task {
            while !Task.isCancelled {
                let now = HomeHarness.residentBytes()
                peak.withLock { $0 = max($0, now) }
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        try await body()
        sampler.cancel()
        return peak.withLock { $0 } - base
    }

    /// The home's disk is slow for a moment (another connection holds SQLite's write lock for 3 s) while the
    /// linked bridge floods: what arrives meanwhile must wait somewhere, and before it waited in memory, all of it.
    @Test func aFloodOfLargeEventsWhileTheHomeIsSlowIsRelayedWholeWithoutGrowingTheHome() async throws {
        let count = 100
        let size = 4 << 20
        let home = try await HomeHarness()
        let go = Gate()
        let event = LinkedBridgeScript.eventFragments(bytes: size)
        let bridge = try await HostileBridge.start(maxFrameSize: 32 << 20) { peer in
            try await LinkedBridgeScript.serve(peer) { peer in
                await go.wait()
                for seq in 1...count { try await peer.send(fragments: event(seq)) }
            }
        }
        defer { bridge.stop() }
        let (link, task) = try await home.link(to: bridge)
        defer { task.cancel() }
        try await home.waitUntil { try home.store.find("hostile")?.state == "online" }
        let growth = try await Self.peakGrowth {
            let held = Gate()
            let slowDisk = Task { try await home.holdWriteLock(for: .seconds(3), held: held) }
            try await held.wait("the write lock held")
            go.open()
            try await slowDisk.value
            try await home.waitUntil("every event relayed", timeout: .seconds(180)) { home.relayedThrough() >= Int64(count) }
        }
        #expect(home.relayedThrough() == Int64(count), "every event relayed, none lost")
        // The link was held back, and what it held stayed in its budget.
        let budget = link.budget
        #expect(link.meter.pauses > 0, "the link stopped reading while the home was slow")
        #expect(link.meter.windowPeak <= budget.inFlightBytes, "window peak \(link.meter.windowPeak)")
        #expect(link.meter.waitingPeak.bytes <= budget.inFlightBytes, "relay buffer peak \(link.meter.waitingPeak.bytes)")
        #expect(link.meter.problems.count == 0, "held back, not closed: \(String(describing: link.meter.problems.last))")
        // 400 MiB went through; the process grew by the window, NIO's buffers and the batch being journaled
        // (103 MiB measured in a debug build; 607 MiB before, when all of it waited in memory).
        #expect(growth < 160 << 20, "resident memory grew by \(growth >> 20) MiB for \(count * size >> 20) MiB relayed")
    }

    @Test func openApprovalsPastTheBudgetDoNotPinTheHomesMemory() async throws {
        let count = 300
        let size = 1 << 20
        let home = try await HomeHarness()
        let bridge = try await HostileBridge.start(maxFrameSize: 32 << 20) { peer in
            try await LinkedBridgeScript.serve(peer) { peer in
                for seq in 1...count { try await peer.send(LinkedBridgeScript.approval(seq: seq, bytes: size)) }
            }
        }
        defer { bridge.stop() }
        let (link, task) = try await home.link(to: bridge)
        defer { task.cancel() }
        let growth = try await Self.peakGrowth {
            try await home.waitUntil { try home.store.find("hostile")?.errorCode == "over_budget" }
        }
        let budget = link.budget
        let held = await home.hub.relayedPending.holding("hostile")
        #expect(held.count <= budget.openRequests && held.bytes <= budget.openRequestBytes, "\(held)")
        #expect(home.relayedThrough() < Int64(count), "not every approval is kept open")
        #expect(link.meter.problems.last?.code == .overBudget)
        let status = await link.status
        #expect(status.state == .offline && status.error?.code == .overBudget, "\(status)")
        #expect(try home.store.find("hostile")?.errorMessage?.contains("open approvals") == true)
        // 286 MiB before, when every open approval stayed in memory.
        #expect(growth < 160 << 20, "resident memory grew by \(growth >> 20) MiB for \(count * size >> 20) MiB of open approvals")
    }
}
