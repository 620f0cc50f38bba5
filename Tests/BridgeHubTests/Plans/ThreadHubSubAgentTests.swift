import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Testing

@testable import BridgeHub

/// Sub-agents through the hub in-process, with the messages Codex 0.163 sends a spawning client (no
/// `thread/started` for the child): the parent hears each child's status (`bridge/subAgent`), the child's events
/// carry its own turn id, and the list asks Codex for spawned sub-agents (reviews and compactions on request).
@Suite(.timeLimit(.minutes(1))) struct ThreadHubSubAgentTests {
    func subAgentEvents(_ frames: [ServerMessage]) -> [JSONValue] {
        frames.compactMap { $0.event }.filter { $0.type == "bridge/subAgent" }.map(\.data)
    }

    func spawn(_ harness: HubHarness, announce: Bool) async throws -> ClientSession {
        let project = harness.project
        harness.codexKnowsThread("parent", cwd: project)
        harness.codex.on("thread/read") { params in
            let id = params["threadId"]?.stringValue ?? ""
            if id == "child" {
                return [
                    "thread": [
                        "id": "child", "cwd": .string(project), "parentThreadId": "parent", "agentNickname": "Huygens",
                        "agentRole": "explorer",
                    ]
                ]
            }
            return ["thread": ["id": .string(id), "cwd": .string(project)]]
        }
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        await harness.codex.notify("turn/started", ["threadId": "parent", "turn": ["id": "p-turn", "rootTurnId": "p-turn"]])
        if announce {
            let item: JSONValue = [
                "type": "collabAgentToolCall", "id": "call_1", "tool": "spawnAgent", "status": "completed", "senderThreadId": "parent",
                "receiverThreadIds": ["child"], "prompt": "count the files", "agentsStates": ["child": ["status": "pendingInit"]],
            ]
            await harness.codex.notify("item/completed", ["threadId": "parent", "turnId": "p-turn", "item": item])
        }
        await harness.codex.notify("turn/started", ["threadId": "child", "turn": ["id": "c-turn", "rootTurnId": "p-turn"]])
        await harness.codex.notify(
            "item/completed", ["threadId": "child", "turnId": "c-turn", "item": ["type": "agentMessage", "id": "m", "text": "3"]])
        return phone
    }

    @Test(arguments: [true, false]) func theParentHearsItsSubAgentAndTheChildKeepsItsTurn(announced: Bool) async throws {
        let harness = try await HubHarness()
        let phone = try await spawn(harness, announce: announced)
        var frames = try await harness.waitFor(phone) {
            $0.event?.type == "bridge/subAgent" && $0.event?.data["agentNickname"] == "Huygens"
        }
        // The child's turn is its own, not the parent's `rootTurnId`.
        let started = frames.compactMap(\.event).first { $0.type == "turn/started" && $0.threadId == "child" }
        #expect(started?.turnId == "c-turn")
        // Interrupting the child names the child's turn.
        #expect(await harness.request(BridgeRequest(.interrupt, ThreadRef(threadId: "child")), phone).errorCode == nil)
        #expect(harness.codex.requests("turn/interrupt").last?["turnId"] == "c-turn")
        await harness.codex.notify(
            "turn/completed", ["threadId": "child", "turn": ["id": "c-turn", "rootTurnId": "p-turn", "status": "completed"]])
        frames += try await harness.waitFor(phone) { $0.event?.type == "bridge/subAgent" && $0.event?.data["status"] == "done" }
        let completed = frames.compactMap(\.event).first { $0.type == "turn/completed" && $0.threadId == "child" }
        #expect(completed?.turnId == "c-turn")
        let announcements = subAgentEvents(frames)
        #expect(announcements.allSatisfy { $0["threadId"] == "parent" && $0["agentThreadId"] == "child" })
        #expect(frames.compactMap(\.event).filter { $0.type == "bridge/subAgent" }.allSatisfy { $0.threadId == "parent" })
        let statuses = announcements.compactMap { $0["status"]?.stringValue }
        #expect(statuses.first == (announced ? "pending" : "running") && statuses.last == "done" && statuses.contains("running"))
        #expect(announcements.last?["agentRole"] == "explorer")
        // A phone that opens the parent later learns its sub-agent with the thread.
        guard
            case .response(_, .thread(let snapshot)) = await harness.request(
                BridgeRequest(.readThread, ReadThread(threadId: "parent")), phone)
        else {
            Issue.record("no thread")
            return
        }
        #expect(snapshot.subAgents == [SubAgent(agentThreadId: "child", status: "done", agentNickname: "Huygens", agentRole: "explorer")])
        // The parent's turn is still the parent's.
        #expect(await harness.request(BridgeRequest(.interrupt, ThreadRef(threadId: "parent")), phone).errorCode == nil)
        #expect(harness.codex.requests("turn/interrupt").last?["turnId"] == "p-turn")
    }

    @Test func aReviewsInnerTurnIsStillTheThreadsTurn() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), phone)
        await harness.codex.notify("turn/started", ["threadId": "t1", "turn": ["id": "inner", "rootTurnId": "rv-1"]])
        let frames = try await harness.waitFor(phone) { $0.event?.type == "turn/started" }
        #expect(frames.compactMap(\.event).first?.turnId == "rv-1")
    }

    @Test func theListAsksForSpawnedSubAgentsAndInternalOnesOnRequest() async throws {
        let harness = try await HubHarness()
        let project = harness.project
        harness.codex.on("thread/list") { _ in
            [
                "data": [
                    [
                        "id": "child", "cwd": .string(project), "parentThreadId": "parent", "agentNickname": "Huygens",
                        "source": ["subAgent": ["thread_spawn": ["parent_thread_id": "parent", "depth": 1]]],
                    ],
                    ["id": "parent", "cwd": .string(project), "source": "vscode"],
                ]
            ]
        }
        let phone = await harness.session()
        guard case .response(_, .threads(let list)) = await harness.request(BridgeRequest(.listThreads, ListThreads()), phone) else {
            return
        }
        #expect(list.threads.first?.parentThreadId == "parent" && list.threads.first?.agentNickname == "Huygens")
        #expect(list.threads.first?.source == "subAgent")
        _ = await harness.request(BridgeRequest(.listThreads, ListThreads(includeInternal: true)), phone)
        let kinds = harness.codex.requests("thread/list").map { Set(($0["sourceKinds"]?.arrayValue ?? []).compactMap(\.stringValue)) }
        #expect(kinds.count == 2)
        #expect(kinds[0].contains("subAgentThreadSpawn") && !kinds[0].contains("subAgentReview") && !kinds[0].contains("subAgentCompact"))
        #expect(kinds[1].isSuperset(of: ["subAgentThreadSpawn", "subAgentReview", "subAgentCompact", "vscode", "cli"]))
    }
}

/// The tracker alone: what each Codex message teaches it, and what it announces.
@Suite struct SubAgentTrackerTests {
    @Test func aSpawnThenTheChildsTurnsThenItsClose() {
        var tracker = SubAgentTracker()
        let none: (String) -> String? = { _ in nil }
        let item: JSONValue = [
            "type": "collabAgentToolCall", "tool": "spawnAgent", "senderThreadId": "p", "receiverThreadIds": ["c"],
            "agentsStates": ["c": ["status": "pendingInit"]],
        ]
        #expect(
            tracker.observe(EventKind(method: "item/completed"), params: ["item": item], threadId: "p", turnOwner: none).map(\.agent.status)
                == [
                    .pending
                ])
        #expect(
            tracker.observe(EventKind(method: "item/completed"), params: ["item": item], threadId: "p", turnOwner: none).isEmpty,
            "nothing new")
        #expect(
            tracker.observe(EventKind(method: "turn/started"), params: ["turn": ["id": "ct"]], threadId: "c", turnOwner: none).map(
                \.agent.status) == [
                    .running
                ])
        #expect(
            tracker.observe(
                EventKind(method: "turn/completed"), params: ["turn": ["id": "ct", "status": "failed"]], threadId: "c", turnOwner: none
            )
            .map(\.agent.status) == [.failed])
        let close: JSONValue = [
            "type": "collabAgentToolCall", "tool": "closeAgent", "receiverThreadIds": ["c"], "agentsStates": ["c": ["status": "shutdown"]],
        ]
        #expect(
            tracker.observe(EventKind(method: "item/completed"), params: ["item": close], threadId: "p", turnOwner: none).map(
                \.agent.status) == [
                    .closed
                ])
        // Another thread's agent is not taken for this one's by a tool other than spawn.
        let foreign: JSONValue = [
            "type": "collabAgentToolCall", "tool": "wait", "receiverThreadIds": ["x"], "agentsStates": ["x": ["status": "running"]],
        ]
        #expect(tracker.observe(EventKind(method: "item/completed"), params: ["item": foreign], threadId: "p", turnOwner: none).isEmpty)
        #expect(tracker.children(of: "p") == ["c"] && !tracker.isSubAgent("x"))
    }

    @Test func aTurnRootedInAnotherThreadsRunningTurnIsASubAgent() {
        var tracker = SubAgentTracker()
        let updates = tracker.observe(
            EventKind(method: "turn/started"), params: ["turn": ["id": "ct", "rootTurnId": "pt"]], threadId: "c",
            turnOwner: { $0 == "pt" ? "p" : nil }
        )
        #expect(updates.map(\.parentThreadId) == ["p"] && tracker.isSubAgent("c"))
        // A review's inner turn (rooted in the same thread's turn) is not.
        #expect(
            tracker.observe(
                EventKind(method: "turn/started"), params: ["turn": ["id": "i", "rootTurnId": "r"]], threadId: "t", turnOwner: { _ in nil }
            ).isEmpty)
        // Nor is a thread its own parent.
        #expect(tracker.learn("p", parent: "p") == nil)
    }

    @Test func anEventsTurnIsItsOwnUnlessAReviewRootsItInTheSameThread() {
        var tracker = SubAgentTracker()
        let review: JSONValue = ["turn": ["id": "inner", "rootTurnId": "r"]]
        #expect(tracker.eventTurnId(["turnId": "t1", "turn": ["id": "x"]], threadId: "t", turnOwner: { _ in nil }) == "t1")
        #expect(tracker.eventTurnId(["turn": ["id": "only"]], threadId: "t", turnOwner: { _ in nil }) == "only")
        // A review's inner turn is the thread's root turn for clients.
        #expect(tracker.eventTurnId(review, threadId: "t", turnOwner: { _ in nil }) == "r")
        // Rooted in a turn running on another thread (a sub-agent Codex did not announce): its own.
        #expect(tracker.eventTurnId(review, threadId: "t", turnOwner: { $0 == "r" ? "parent" : nil }) == "inner")
        // A known sub-agent: its own.
        _ = tracker.learn("t", parent: "parent")
        #expect(tracker.eventTurnId(review, threadId: "t", turnOwner: { _ in nil }) == "inner")
    }

    @Test func aSubAgentIsLookedUpOnceWhileItsNicknameIsUnknownAndShownWithItsData() throws {
        var tracker = SubAgentTracker()
        // Mutating calls outside the macros: #expect and #require take their subject as an immutable value.
        let spawnedUpdate = tracker.learn("c", parent: "p", status: .pending)
        let spawned = try #require(spawnedUpdate)
        let lookedUpFirst = tracker.claimLookup(for: spawned)
        #expect(lookedUpFirst, "the first update of an unnamed agent looks it up")
        let runningUpdate = tracker.learn("c", parent: "p", status: .running)
        let running = try #require(runningUpdate)
        let lookedUpAgain = tracker.claimLookup(for: running)
        #expect(!lookedUpAgain, "once")
        let namedUpdate = tracker.learn("d", parent: "p", nickname: "Ada")
        let named = try #require(namedUpdate)
        let lookedUpNamed = tracker.claimLookup(for: named)
        #expect(!lookedUpNamed, "a named agent needs no lookup")
        #expect(
            running.eventData == ["threadId": "p", "agentThreadId": "c", "status": "running"]
                && named.eventData == ["threadId": "p", "agentThreadId": "d", "agentNickname": "Ada"])
        #expect(tracker.shown(under: "p").map(\.agentThreadId) == ["c", "d"] && tracker.shown(under: "p").last?.agentNickname == "Ada")
    }
}
