import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Testing

@testable import BridgeHub

/// Goals through the hub in-process: `setGoal`/`clearGoal` pass the gate and reach Codex's `thread/goal/*`, the
/// thread is loaded with the bridge's policy first (an active goal makes Codex start turns), and the goal Codex
/// reports shows in `listThreads` and `readThread`.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubGoalTests {
    static let goal: JSONValue = [
        "threadId": "t1", "objective": "ship it", "status": "active", "tokenBudget": 5000, "tokensUsed": 0, "timeUsedSeconds": 0,
        "createdAt": 1, "updatedAt": 1,
    ]

    @Test func setGoalLoadsTheThreadWithTheBridgesPolicyAndAsksCodex() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        harness.codex.on("thread/goal/set") { _ in ["goal": Self.goal] }
        harness.codex.on("thread/goal/clear") { _ in ["cleared": true] }
        let phone = await harness.session()
        let answer = await harness.request(
            BridgeRequest(.setGoal, SetGoal(threadId: "t1", objective: "  ship it \n", tokenBudget: 5000)), phone)
        guard case .response(_, .goal(let set)) = answer else {
            Issue.record("\(answer)")
            return
        }
        #expect(
            set
                == GoalSet(
                    threadId: "t1",
                    goal: ThreadGoal(
                        objective: "ship it", status: "active", tokenBudget: 5000, tokensUsed: 0, timeUsedSeconds: 0, updatedAt: 1)))
        let sent = try #require(harness.codex.requests("thread/goal/set").first)
        #expect(sent["objective"] == "ship it" && sent["tokenBudget"] == 5000 && sent["origin"] == "user" && sent["threadId"] == "t1")
        // Loaded first, with the bridge's policy (the thread was unknown to this Codex).
        let resume = try #require(harness.codex.requests("thread/resume").first)
        #expect(resume["sandbox"] == "workspace-write" && resume["approvalPolicy"] == "on-request")
        #expect(
            harness.codex.requests.firstIndex { $0.method == "thread/resume" }! < harness.codex.requests.firstIndex {
                $0.method == "thread/goal/set"
            }!)
        guard
            case .response(_, .thread(let snapshot)) = await harness.request(BridgeRequest(.readThread, ReadThread(threadId: "t1")), phone)
        else {
            return
        }
        #expect(snapshot.goal?.objective == "ship it")
        #expect(harness.codex.requests("thread/goal/get").isEmpty, "the goal Codex answered is known")
        guard case .response(_, .accepted(let cleared)) = await harness.request(BridgeRequest(.clearGoal, ThreadRef(threadId: "t1")), phone)
        else {
            return
        }
        #expect(cleared.threadId == "t1" && harness.codex.requests("thread/goal/clear").first?["origin"] == "user")
        guard case .response(_, .thread(let after)) = await harness.request(BridgeRequest(.readThread, ReadThread(threadId: "t1")), phone)
        else { return }
        #expect(after.goal == nil)
    }

    @Test func badGoalsAndForeignThreadsNeverReachCodex() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        harness.codex.on("thread/goal/set") { _ in ["goal": Self.goal] }
        let phone = await harness.session()
        for bad in [
            SetGoal(threadId: "t1", objective: "  "), SetGoal(threadId: "t1", objective: String(repeating: "x", count: 4001)),
            SetGoal(threadId: "t1", objective: "a\u{7}b"), SetGoal(threadId: "t1", objective: "ok", tokenBudget: 0),
            SetGoal(threadId: "t1", objective: "ok", tokenBudget: -5),
        ] {
            #expect(await harness.request(BridgeRequest(.setGoal, bad), phone).errorCode == .badRequest, "\(bad)")
        }
        let foreign = try await HubHarness()
        foreign.codexKnowsThread("far", cwd: foreign.outside)
        foreign.codex.on("thread/goal/set") { _ in ["goal": Self.goal] }
        foreign.codex.on("thread/goal/clear") { _ in ["cleared": true] }
        let other = await foreign.session()
        #expect(await foreign.request(BridgeRequest(.setGoal, SetGoal(threadId: "far", objective: "x")), other).errorCode == .forbiddenPath)
        #expect(await foreign.request(BridgeRequest(.clearGoal, ThreadRef(threadId: "far")), other).errorCode == .forbiddenPath)
        #expect(await foreign.request(BridgeRequest(.setGoal, SetGoal(threadId: "nope", objective: "x")), other).errorCode == .notFound)
        #expect(harness.codex.requests("thread/goal/set").isEmpty && foreign.codex.requests("thread/goal/set").isEmpty)
        #expect(foreign.codex.requests("thread/goal/clear").isEmpty)
        // A device that may only watch may not set goals (they start turns).
        let watcher = await harness.session(deviceId: "k3q9m2xa7bzt", scopes: Scopes([.observe]))
        let refused = await harness.request(BridgeRequest(.setGoal, SetGoal(threadId: "t1", objective: "ship it")), watcher)
        guard case .error(let error) = refused else {
            Issue.record("\(refused)")
            return
        }
        #expect(error.code == .forbidden && error.scope == .operate)
        #expect(await harness.request(BridgeRequest(.clearGoal, ThreadRef(threadId: "t1")), watcher).errorCode == .forbidden)
        #expect(harness.codex.requests("thread/goal/set").isEmpty)
    }

    @Test func theListShowsGoalsFromCodexsReportsAndAsksForTheRestOnce() async throws {
        let harness = try await HubHarness()
        let project = harness.project
        harness.codex.on("thread/list") { _ in
            [
                "data": [
                    ["id": "t1", "cwd": .string(project)], ["id": "t2", "cwd": .string(project)], ["id": "t3", "cwd": .string(project)],
                ]
            ]
        }
        harness.codex.on("thread/goal/get") { params in
            switch params["threadId"]?.stringValue {
            case "t2": return ["goal": ["objective": "tests green", "status": "paused", "tokensUsed": 12]]
            case "t3": throw CodexError.rpc(code: -32600, message: "thread not found: t3")
            default: return ["goal": .null]
            }
        }
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        await harness.codex.notify("thread/goal/updated", ["threadId": "t1", "turnId": .null, "goal": Self.goal])
        _ = try await harness.waitFor(phone) { $0.event?.type == "thread/goal/updated" }
        guard case .response(_, .threads(let list)) = await harness.request(BridgeRequest(.listThreads, ListThreads()), phone) else {
            return
        }
        #expect(list.threads.map(\.goal?.status) == ["active", "paused", nil])
        #expect(list.threads.first?.goal?.tokenBudget == 5000)
        #expect(Set(harness.codex.requests("thread/goal/get").compactMap { $0["threadId"]?.stringValue }) == ["t2", "t3"])
        await harness.codex.notify("thread/goal/cleared", ["threadId": "t2"])
        _ = try await harness.waitFor(phone) { $0.event?.type == "thread/goal/cleared" }
        guard case .response(_, .threads(let again)) = await harness.request(BridgeRequest(.listThreads, ListThreads()), phone) else {
            return
        }
        #expect(again.threads.map(\.goal?.status) == ["active", nil, nil])
        #expect(harness.codex.requests("thread/goal/get").count == 2, "known threads are not asked again")
    }
}
