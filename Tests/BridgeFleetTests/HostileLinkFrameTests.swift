import BridgeProtocol
import BridgeStore
import Foundation
import HostileBridge
import NIOCore
import Testing

@testable import BridgeFleet
@testable import BridgeHub

/// Issue 44, items 1 and 2, at the home bridge's link: a linked bridge (a real WebSocket server on 127.0.0.1)
/// that sends a bad frame or more than one link may hold gets its link closed with a reason (`bad_frame`,
/// `over_budget`) that its row and status show; the home bridge, and another machine's link, go on.
@Suite(.serialized, .timeLimit(.minutes(2))) struct HostileLinkFrameTests {
    /// A link closed for cause waits this long in the tests (the default is 30 s).
    static var budget: LinkBudget {
        var budget = LinkBudget()
        budget.pauseAfterProblem = .seconds(60)
        return budget
    }

    /// Links to a bridge that says hello with `ack` frames (nil: the usual helloAck) and then sends `frames`;
    /// returns the link once its row names a problem.
    static func closedLink(
        hello: [String]? = nil, frames: [String] = [], budget: LinkBudget = Self.budget
    ) async throws -> (HomeHarness, MachineLink, HostileBridge, Task<Void, Never>) {
        let home = try await HomeHarness()
        let bridge = try await HostileBridge.start(maxFrameSize: 32 << 20) { peer in
            if let hello {
                guard await peer.receive() != nil else { return }
                for frame in hello { try await peer.send(frame) }
                while await peer.receive() != nil {}
                return
            }
            try await LinkedBridgeScript.serve(peer) { peer in
                for frame in frames { try await peer.send(frame) }
            }
        }
        let (link, task) = try await home.link(to: bridge, budget: budget)
        try await home.waitUntil { try home.store.find("hostile")?.errorCode != nil }
        return (home, link, bridge, task)
    }

    /// Regression: this answer to the link's hello trapped in BridgeClient (`Int64(1e300 * 1000)`) and took the
    /// whole process down, and again at every start of `serve` (the link connects at once).
    @Test func pairingPendingWithAHugeExpiryClosesTheLinkNotTheProcess() async throws {
        let pending = #"{"kind":"pairingPending","deviceId":"d","check":"0427","expiresAt":1e300}"#
        let (home, link, bridge, task) = try await Self.closedLink(hello: [pending])
        defer {
            task.cancel()
            bridge.stop()
        }
        let row = try #require(try home.store.find("hostile"))
        #expect(row.errorCode == "bad_frame" && row.state == "offline")
        #expect(row.errorMessage?.contains("pairingPending.expiresAt") == true, "\(String(describing: row.errorMessage))")
        let status = await link.status
        #expect(status.error?.code == .badFrame && status.state == .offline)
        #expect(bridge.connections == 1, "not tried again at once")
    }

    @Test(arguments: [
        (#"{"kind":"event","seq":-1,"threadId":"t","type":"x","data":{}}"#, "event.seq -1 is negative"),
        (#"{"kind":"event","seq":"x","threadId":"t","type":"x","data":{}}"#, "event"),
        (#"{"kind":"approvalRequest","seq":1e300,"approvalId":"a","threadId":"t","type":"x"}"#, "approvalRequest"),
        ("{not json", "not a JSON object"),
        (#"{"kind":"event","seq":3,"threadId":"\#(String(repeating: "t", count: 300))","type":"x","data":{}}"#, "an id of 300 bytes"),
    ])
    func aBadFrameClosesTheLinkWithItsReason(frame: String, reason: String) async throws {
        let good = LinkedBridgeScript.event(seq: 1, bytes: 10)
        let (home, _, bridge, task) = try await Self.closedLink(frames: [good, frame])
        defer {
            task.cancel()
            bridge.stop()
        }
        let row = try #require(try home.store.find("hostile"))
        #expect(row.errorCode == "bad_frame" && row.errorMessage?.contains(reason) == true, "\(String(describing: row.errorMessage))")
        #expect(home.relayedThrough() == 1, "what came before the bad frame was relayed")
    }

    @Test func moreThreadsThanItsShareCloseTheLinkOverBudget() async throws {
        var budget = Self.budget
        budget.threads = 5
        let frames = (1...8).map { LinkedBridgeScript.event(seq: $0, thread: "t-\($0)", bytes: 10) }
        let (home, link, bridge, task) = try await Self.closedLink(frames: frames, budget: budget)
        defer {
            task.cancel()
            bridge.stop()
        }
        #expect(try home.store.find("hostile")?.errorCode == "over_budget")
        #expect(link.meter.problems.last?.message.contains("more than 5 threads") == true)
        #expect(home.relayedThrough() == 5)
    }

    /// A message over the limit in fragments: the link is closed with the reason. (One frame over the limit is
    /// refused by NIO from its header, before any of it is read, and the connection closed with 1009; WSClient
    /// does not say why, so the link reconnects as after a drop: see the next test.)
    @Test func aMessageOverTheSizeLimitClosesTheLink() async throws {
        var budget = Self.budget
        budget.maxMessageBytes = 64 << 10
        budget.inFlightBytes = 128 << 10
        let home = try await HomeHarness()
        let bridge = try await HostileBridge.start(maxFrameSize: 32 << 20) { peer in
            try await LinkedBridgeScript.serve(peer) { peer in
                try await peer.send(LinkedBridgeScript.event(seq: 1, bytes: 10))
                // Each fragment under the limit, the message over it.
                let text = Array(LinkedBridgeScript.event(seq: 2, bytes: 100 << 10).utf8)
                let buffers = stride(from: 0, to: text.count, by: 16 << 10).map {
                    ByteBuffer(bytes: text[$0..<min($0 + (16 << 10), text.count)])
                }
                try await peer.send(fragments: buffers)
            }
        }
        defer { bridge.stop() }
        let (_, task) = try await home.link(to: bridge, budget: budget)
        defer { task.cancel() }
        try await home.waitUntil { try home.store.find("hostile")?.errorCode != nil }
        let row = try #require(try home.store.find("hostile"))
        #expect(row.errorCode == "bad_frame" && row.errorMessage?.contains("65536") == true, "\(String(describing: row.errorMessage))")
        #expect(home.relayedThrough() == 1)
    }

    @Test func aSingleFrameOverTheSizeLimitIsNeverRelayed() async throws {
        var budget = Self.budget
        budget.maxMessageBytes = 64 << 10
        budget.inFlightBytes = 128 << 10
        let home = try await HomeHarness()
        let bridge = try await HostileBridge.start(maxFrameSize: 32 << 20) { peer in
            try await LinkedBridgeScript.serve(peer) { peer in
                try await peer.send(LinkedBridgeScript.event(seq: 1, bytes: 10))
                try await peer.send(LinkedBridgeScript.event(seq: 2, bytes: 100 << 10))
            }
        }
        defer { bridge.stop() }
        let (_, task) = try await home.link(to: bridge, budget: budget)
        defer { task.cancel() }
        try await home.waitUntil { bridge.connections >= 2 }
        #expect(home.relayedThrough() == 1)
    }

    /// One machine's bad frames leave another machine's link relaying.
    @Test func anotherMachineGoesOn() async throws {
        let home = try await HomeHarness()
        let hostile = try await HostileBridge.start { peer in
            try await LinkedBridgeScript.serve(peer) { peer in try await peer.send("{not json") }
        }
        let good = try await HostileBridge.start { peer in
            try await LinkedBridgeScript.serve(peer) { peer in
                for seq in 1...50 { try await peer.send(LinkedBridgeScript.event(seq: seq, thread: "good-thread", bytes: 100)) }
            }
        }
        defer {
            hostile.stop()
            good.stop()
        }
        let (_, hostileTask) = try await home.link(to: hostile, id: "hostile", budget: Self.budget)
        let (goodLink, goodTask) = try await home.link(to: good, id: "good", budget: Self.budget)
        defer {
            hostileTask.cancel()
            goodTask.cancel()
        }
        try await home.waitUntil { try home.store.find("hostile")?.errorCode == "bad_frame" }
        try await home.waitUntil { home.relayedThrough("good") == 50 }
        let status = await goodLink.status
        #expect(status.state == .online && status.error == nil)
    }
}
