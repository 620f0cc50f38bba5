import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Testing

@testable import BridgeHub

/// Plan mode and plans through the hub in-process: the collaboration mode a request chooses reaches Codex's
/// `turn/start` with the thread's model, the thread remembers it (across a restart of the bridge), and the plans
/// Codex reports come back with the thread.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubPlanModeTests {
    static func mode(_ params: JSONValue?) -> String? { params?["collaborationMode"]?["mode"]?.stringValue }

    func knowsThread(_ harness: HubHarness, model: String = "gpt-test", effort: String? = "high") {
        harness.codexKnowsThread("t1", cwd: harness.project)
        let project = harness.project
        harness.codex.on("thread/read") { _ in
            [
                "thread": [
                    "id": "t1", "cwd": .string(project), "model": .string(model), "reasoningEffort": effort.map(JSONValue.string) ?? .null,
                ]
            ]
        }
        harness.codex.on("model/list") { _ in
            ["data": [["id": "other", "supportedReasoningEfforts": [["reasoningEffort": "low"]]], ["id": "m-1"]]]
        }
    }

    @Test func aChosenModeReachesCodexWithTheThreadsModelAndIsRemembered() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        do {
            let harness = try await HubHarness(directory: directory)
            knowsThread(harness)
            let phone = await harness.session()
            #expect(
                await harness.request(
                    BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "think first", collaborationMode: .plan)), phone
                )
                .errorCode == nil)
            let first = try #require(harness.codex.requests("turn/start").first)
            #expect(Self.mode(first) == "plan")
            #expect(first["collaborationMode"]?["settings"]?["model"] == "gpt-test")
            #expect(first["collaborationMode"]?["settings"]?["reasoning_effort"] == "high")
            #expect(first["collaborationMode"]?["settings"]?["developer_instructions"] == .null)
            await harness.codex.notify("turn/completed", ["threadId": "t1", "turn": ["id": "turn-1", "status": "completed"]])
            // No mode named: the thread's own.
            #expect(await harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "more")), phone).errorCode == nil)
            #expect(Self.mode(harness.codex.requests("turn/start").last) == "plan")
            // A model named with the message is the mode's model too.
            await harness.codex.notify("turn/completed", ["threadId": "t1", "turn": ["id": "turn-1", "status": "completed"]])
            #expect(
                await harness.request(
                    BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "x", model: "other", effort: "low")), phone
                ).errorCode
                    == nil)
            let third = harness.codex.requests("turn/start").last
            #expect(
                third?["collaborationMode"]?["settings"]?["model"] == "other"
                    && third?["collaborationMode"]?["settings"]?["reasoning_effort"] == "low")
            #expect(harness.codex.requests("thread/read").count == 1, "the model is looked up once")
        }
        // The bridge restarts: the thread still starts its turns in plan mode, and says so.
        let restarted = try await HubHarness(directory: directory)
        knowsThread(restarted)
        let phone = await restarted.session()
        #expect(await restarted.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "after")), phone).errorCode == nil)
        #expect(Self.mode(restarted.codex.requests("turn/start").last) == "plan")
        guard
            case .response(_, .thread(let snapshot)) = await restarted.request(
                BridgeRequest(.readThread, ReadThread(threadId: "t1")), phone)
        else {
            Issue.record("no thread")
            return
        }
        #expect(snapshot.collaborationMode == .plan)
        // Default again, and remembered.
        await restarted.codex.notify("turn/completed", ["threadId": "t1", "turn": ["id": "turn-1", "status": "completed"]])
        #expect(
            await restarted.request(
                BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "go", collaborationMode: .default)), phone
            ).errorCode
                == nil)
        #expect(Self.mode(restarted.codex.requests("turn/start").last) == "default")
        #expect(try restarted.storage.plans.mode(of: "t1") == .default)
    }

    @Test func aThreadWithoutAModeStartsTurnsWithoutOne() async throws {
        let harness = try await HubHarness()
        knowsThread(harness)
        let phone = await harness.session()
        #expect(await harness.request(BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "hi")), phone).errorCode == nil)
        #expect(harness.codex.requests("turn/start").first?["collaborationMode"] == nil)
        #expect(harness.codex.requests("thread/read").isEmpty)
    }

    @Test func startThreadInPlanModeUsesTheModelItAsked() async throws {
        let harness = try await HubHarness()
        knowsThread(harness)
        let phone = await harness.session()
        let start = StartThread(cwd: harness.project, prompt: "plan it", model: "m-1", collaborationMode: .plan)
        #expect(await harness.request(BridgeRequest(.startThread, start), phone).errorCode == nil)
        let sent = harness.codex.requests("turn/start").first
        #expect(Self.mode(sent) == "plan" && sent?["collaborationMode"]?["settings"]?["model"] == "m-1")
        #expect(try harness.storage.plans.mode(of: "t1") == .plan)
    }

    @Test func aRefusedTurnDoesNotChangeTheRememberedMode() async throws {
        let harness = try await HubHarness()
        knowsThread(harness)
        harness.codex.on("turn/start") { _ in throw CodexError.rpc(code: -32600, message: "no") }
        let phone = await harness.session()
        #expect(
            await harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "x", collaborationMode: .plan)), phone)
                .errorCode
                == .codexError)
        #expect(try harness.storage.plans.mode(of: "t1") == nil)
    }

    @Test func aQueuedMessageKeepsItsMode() async throws {
        let harness = try await HubHarness()
        knowsThread(harness)
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), phone)
        _ = await harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "first")), phone)
        await harness.codex.notify("turn/started", ["threadId": "t1", "turn": ["id": "turn-1"]])
        _ = try await harness.waitFor(phone) { $0.event?.type == "turn/started" }
        let queued = SendMessage(threadId: "t1", text: "then plan", mode: .queue, collaborationMode: .plan)
        #expect(await harness.request(BridgeRequest(.sendMessage, queued), phone).errorCode == nil)
        #expect(try harness.storage.queue.all().first?.announcement.collaborationMode == .plan)
        await harness.codex.notify("turn/completed", ["threadId": "t1", "turn": ["id": "turn-1", "status": "completed"]])
        _ = try await harness.waitFor(phone) { if case .messageUnqueued = $0 { true } else { false } }
        #expect(Self.mode(harness.codex.requests("turn/start").last) == "plan")
    }

    @Test func plansAreKeptPerTurnAndComeBackWithTheThread() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        do {
            let harness = try await HubHarness(directory: directory)
            knowsThread(harness)
            let phone = await harness.session()
            _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), phone)
            let steps: JSONValue = [["step": "Read", "status": "completed"], ["step": "Write", "status": "inProgress"]]
            await harness.codex.notify("turn/plan/updated", ["threadId": "t1", "turnId": "turn-1", "explanation": "why", "plan": steps])
            await harness.codex.notify(
                "turn/plan/updated",
                [
                    "threadId": "t1", "turnId": "turn-1",
                    "plan": [["step": "Read", "status": "completed"], ["step": "Write", "status": "completed"]],
                ])
            await harness.codex.notify(
                "turn/plan/updated", ["threadId": "t1", "turnId": "turn-2", "plan": [["step": "Ship", "status": "pending"]]])
            let frames = try await harness.waitFor(phone) { $0.event?.turnId == "turn-2" }
            #expect(frames.filter { $0.event?.type == "turn/plan/updated" }.count == 3, "every update is relayed")
        }
        let restarted = try await HubHarness(directory: directory)
        knowsThread(restarted)
        let phone = await restarted.session()
        guard
            case .response(_, .thread(let snapshot)) = await restarted.request(
                BridgeRequest(.readThread, ReadThread(threadId: "t1")), phone)
        else {
            Issue.record("no thread")
            return
        }
        #expect(
            snapshot.plans == [
                TurnPlan(
                    turnId: "turn-1", plan: [PlanStep(step: "Read", status: "completed"), PlanStep(step: "Write", status: "completed")]),
                TurnPlan(turnId: "turn-2", plan: [PlanStep(step: "Ship", status: "pending")]),
            ])
    }
}
