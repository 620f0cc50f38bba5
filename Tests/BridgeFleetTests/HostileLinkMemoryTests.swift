import BridgeHub
import BridgeProtocol
import BridgeStore
import Foundation
import HostileBridge
import Synchronization
import Testing

@testable import BridgeFleet

/// Issue 44, item 2: a linked bridge (a real WebSocket server on 127.0.0.1 that the test plays) floods the home
/// bridge (a real hub, journal and link). Before, caps counted messages and a message could be 16 MiB: 800 MiB
/// of events raised the home's memory by 725 MiB, and open approvals pinned 843 MiB. Now the process's memory
/// stays well under what was sent, every event still arrives, and open approvals beyond the link's budget close
/// the link with `over_budget`.
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

    @Test func aFloodOfLargeEventsIsRelayedWholeWithoutGrowingTheHome() async throws {
        let count = 400
        let size = 1 << 20
        let home = try await HomeHarness()
        let bridge = try await HostileBridge.start(maxFrameSize: 32 << 20) { peer in
            try await LinkedBridgeScript.serve(peer) { peer in
                for seq in 1...count { try await peer.send(LinkedBridgeScript.event(seq: seq, bytes: size)) }
            }
        }
        defer { bridge.stop() }
        let (_, task) = try await home.link(to: bridge)
        defer { task.cancel() }
        let growth = try await Self.peakGrowth {
            let deadline = ContinuousClock.now + .seconds(180)
            while home.relayedThrough() < Int64(count), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        }
        print("GROWTH events \(growth >> 20) MiB")
        #expect(home.relayedThrough() == Int64(count), "every event relayed, none lost")
        // 400 MiB went through; the home holds a bounded window of it (at most ~104 MiB by the budget's sum).
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
        let (_, task) = try await home.link(to: bridge)
        defer { task.cancel() }
        let growth = await Self.peakGrowth {
            // However far it gets, nothing here may hold the open approvals past the budget.
            try? await Task.sleep(for: .seconds(8))
        }
        print("GROWTH approvals \(growth >> 20) MiB, relayed \(home.relayedThrough())")
        #expect(home.relayedThrough() < Int64(count), "not every approval is kept open")
        #expect(growth < 160 << 20, "resident memory grew by \(growth >> 20) MiB for \(count * size >> 20) MiB of open approvals")
    }
}
