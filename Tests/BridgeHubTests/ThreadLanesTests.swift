import BridgeProtocol
import CodexControl
import Foundation
import Synchronization
import Testing

@testable import BridgeHub

/// The requests that change a thread's turns run one at a time per thread (issue 45 item 1): a check and its
/// act are one step. Before the lanes a `sendMessage` arriving while `revertThread` waited on Codex started its
/// turn in the middle of the revert (seen failing: ["turn started", "revert ended"]).
@Suite(.timeLimit(.minutes(1))) struct ThreadLanesTests {
    /// What ended when, as Codex saw it.
    final class Order: Sendable {
        private let items = Mutex<[String]>([])
        func append(_ item: String) { items.withLock { $0.append(item) } }
        var all: [String] { items.withLock { $0 } }
    }

    /// A harness whose Codex holds `thread/revert` until `release` yields, and writes down what ended when.
    func revertHeld(order: Order, release: AsyncStream<Void>) async throws -> HubHarness {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let cwd = harness.project
        harness.codex.on("thread/read") { params in  // both threads, in the project
            ["thread": ["id": params["threadId"] ?? "?", "cwd": .string(cwd), "turns": []]]
        }
        harness.codex.onAsync("thread/revert") { _ in
            for await _ in release { break }
            order.append("revert ended")
            return [:]
        }
        harness.codex.on("turn/start") { params in
            order.append("turn started on \(params["threadId"]?.stringValue ?? "?")")
            return ["turn": ["id": "turn-2"]]
        }
        return harness
    }

    @Test func aMessageArrivingDuringARevertStartsItsTurnAfterIt() async throws {
        let order = Order()
        let (release, releasing) = AsyncStream<Void>.makeStream()
        let harness = try await revertHeld(order: order, release: release)
        let phone = await harness.session()
        let revert = Task { await harness.request(BridgeRequest(.revertThread, RevertThread(threadId: "t1", turnId: "turn-1")), phone) }
        try await harness.until("thread/revert asked") { harness.codex.requests("thread/revert").count == 1 }
        let message = Task { await harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "next")), phone) }
        // Without a lane the turn starts while Codex reverts; with one the message waits for the revert.
        try await harness.until("the turn waits in the lane") { !order.all.isEmpty || harness.hub.lanes.waiting(on: "t1") == 1 }
        releasing.yield()
        #expect(await revert.value.errorCode == nil)
        #expect(await message.value.errorCode == nil)
        #expect(order.all == ["revert ended", "turn started on t1"])
    }

    @Test func anotherThreadsMessageDoesNotWait() async throws {
        let order = Order()
        let (release, releasing) = AsyncStream<Void>.makeStream()
        let harness = try await revertHeld(order: order, release: release)
        let phone = await harness.session()
        let revert = Task { await harness.request(BridgeRequest(.revertThread, RevertThread(threadId: "t1", turnId: "turn-1")), phone) }
        try await harness.until("thread/revert asked") { harness.codex.requests("thread/revert").count == 1 }
        #expect(await harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t2", text: "other")), phone).errorCode == nil)
        // Reads of the reverting thread do not wait either.
        #expect(await harness.request(BridgeRequest(.getDiff, ThreadRef(threadId: "t1")), phone).errorCode == nil)
        releasing.yield()
        #expect(await revert.value.errorCode == nil)
        #expect(order.all == ["turn started on t2", "revert ended"])
    }

    @Test func theLaneKindsAreTheOnesThatTouchTurns() {
        #expect(ThreadLanes.takesLane(.sendMessage) && ThreadLanes.takesLane(.revertThread) && ThreadLanes.takesLane(.removeWorktree))
        #expect(!ThreadLanes.takesLane(.readThread) && !ThreadLanes.takesLane(.gitPush) && !ThreadLanes.takesLane(.gitCommitMessage))
    }
}
