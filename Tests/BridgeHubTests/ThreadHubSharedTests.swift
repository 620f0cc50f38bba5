import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Testing

@testable import BridgeHub

/// The hub on a shared app-server (`serve --shared`): threads the terminal's Codex drives.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubSharedTests {
    /// Codex's thread/read answer for a thread whose first turn already ended.
    static func finishedThread(_ threadId: String, cwd: String) -> JSONValue {
        [
            "thread": [
                "id": .string(threadId), "cwd": .string(cwd),
                "turns": [
                    [
                        "id": "turn-1", "status": "completed",
                        "items": [
                            ["type": "userMessage", "id": "u1", "content": [["type": "text", "text": "hi"]]],
                            ["type": "agentMessage", "id": "m1", "text": "Hello from the desk."],
                        ],
                    ]
                ],
            ]
        ]
    }

    @Test func aTerminalThreadIsResumedWhenActiveAndItsMissedTurnPublished() async throws {
        let harness = try await HubHarness(shared: true)
        let project = harness.project
        harness.codex.on("thread/resume") { _ in ["thread": ["id": "tui", "cwd": .string(project)]] }
        harness.codex.on("thread/read") { _ in Self.finishedThread("tui", cwd: project) }
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        await harness.codex.notify("thread/started", ["thread": ["id": "tui", "cwd": .string(project), "ephemeral": false]])
        _ = try await harness.waitFor(phone) { $0.event?.type == "thread/started" }
        // Codex refuses a resume before the first turn: none is tried yet.
        #expect(harness.codex.requests("thread/resume").isEmpty)
        await harness.codex.notify("thread/status/changed", ["threadId": "tui", "status": ["type": "active"]])
        let frames = try await harness.waitFor(phone) { $0.event?.type == "turn/completed" }
        #expect(harness.codex.requests.map(\.method).filter { $0 != "thread/list" } == ["thread/resume", "thread/read"])
        let resume = try #require(harness.codex.requests("thread/resume").first)
        // Resumed as an observer: the terminal's sandbox and approval policy stay.
        #expect(resume["sandbox"] == nil && resume["approvalPolicy"] == nil)
        let events = frames.compactMap(\.event).filter { $0.type != "thread/status/changed" }
        #expect(events.map(\.type) == ["turn/started", "item/completed", "item/completed", "turn/completed"])
        #expect(events.map(\.seq) == events.map(\.seq).sorted())
        #expect(events[2].data["item"]?["text"]?.stringValue == "Hello from the desk.")
        #expect(events.allSatisfy { $0.data["backfilled"]?.boolValue == true })
        #expect(try harness.storage.journal.lastSeq() == events.last?.seq)
        // Live events after the resume are relayed once.
        await harness.codex.notify("turn/started", ["threadId": "tui", "turn": ["id": "turn-2"]])
        let live = try await harness.waitFor(phone) { $0.event?.type == "turn/started" }
        #expect(live.compactMap(\.event).map(\.type) == ["turn/started"])
    }

    @Test func threadsOutsideTheRootsAndHelperThreadsStayHidden() async throws {
        let harness = try await HubHarness(shared: true)
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        await harness.codex.notify("thread/started", ["thread": ["id": "far", "cwd": .string(harness.outside)]])
        await harness.codex.notify("thread/status/changed", ["threadId": "far", "status": ["type": "active"]])
        await harness.codex.notify("thread/started", ["thread": ["id": "helper", "cwd": .string(harness.project), "ephemeral": true]])
        await harness.codex.notify("thread/status/changed", ["threadId": "helper", "status": ["type": "active"]])
        // A marker thread inside the roots: once its event is here, the earlier ones were processed.
        await harness.codex.notify("thread/started", ["thread": ["id": "near", "cwd": .string(harness.project)]])
        let frames = try await harness.waitFor(phone) { $0.event?.threadId == "near" }
        #expect(frames.compactMap(\.event).map(\.threadId) == ["near"])
        #expect(harness.codex.requests("thread/resume").isEmpty)
        // Their approvals are left to the terminal: never answered (an error would beat the terminal's answer).
        await harness.codex.ask(3, "item/commandExecution/requestApproval", ["threadId": "far", "itemId": "i", "command": "rm -rf /"])
        await harness.codex.ask(4, "item/tool/requestUserInput", ["threadId": "near", "itemId": "q"])
        await harness.codex.notify("thread/status/changed", ["threadId": "near", "status": ["type": "idle"]])
        let later = try await harness.waitFor(phone) { $0.event?.type == "thread/status/changed" }
        #expect(!later.contains { if case .approvalRequest = $0 { true } else { false } })
        #expect(harness.codex.responses.isEmpty)
    }

    @Test func anApprovalTheTerminalAnsweredFirstIsResolvedWithItsOutcome() async throws {
        let harness = try await HubHarness(shared: true)
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session(deviceId: "dev-a")
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        _ = await harness.request(BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "p")), phone)
        await harness.codex.ask(
            7, "item/commandExecution/requestApproval", ["threadId": "t1", "turnId": "turn-1", "itemId": "i1", "command": "touch x"])
        let asked = try await harness.waitFor(phone) { if case .approvalRequest = $0 { true } else { false } }
        guard case .approvalRequest(let approval) = asked.last else { return }
        await harness.codex.notify("serverRequest/resolved", ["threadId": "t1", "requestId": 7])
        _ = try await harness.waitFor(phone) { $0.event?.type == "serverRequest/resolved" }
        let late = await harness.request(BridgeRequest(.approve, Approve(approvalId: approval.approvalId, decision: .accept)), phone)
        #expect(late.errorCode == .approvalNotPending)
        await harness.codex.notify(
            "item/completed",
            ["threadId": "t1", "turnId": "turn-1", "item": ["id": "i1", "type": "commandExecution", "status": "declined"]])
        let frames = try await harness.waitFor(phone) { $0.event?.type == "item/completed" }
        let resolved = frames.compactMap { message -> ApprovalResolved? in
            if case .approvalResolved(let resolved) = message { return resolved }
            return nil
        }
        #expect(resolved.count == 1 && resolved.first?.decision == .decline && resolved.first?.answeredElsewhere == true)
        #expect(harness.codex.responses.isEmpty)
        // The audit names the desk's TUI as who answered.
        var desk: [AuditEntry] = []
        try await harness.until("the desk's audit entry") {
            desk = try await harness.storage.audit.entries().filter { $0.actor == .desk }
            return !desk.isEmpty
        }
        #expect(desk.map(\.kind) == ["approve"] && desk.first?.detail?.hasPrefix("decline ") == true)
    }

    @Test func theTrackerBackfillsOnlyWhatWasNotSeen() {
        var tracker = SharedThreadTracker()
        _ = tracker.note(threadId: "t", CodexNotification(method: "turn/started", params: ["threadId": "t", "turn": ["id": "turn-1"]]))
        tracker.beginResume("t")
        // Held while resuming: the agent message arrives live during the resume.
        let publishNow = tracker.note(
            threadId: "t",
            CodexNotification(method: "item/completed", params: ["threadId": "t", "item": ["id": "m1", "type": "agentMessage"]]))
        #expect(!publishNow)
        let events = tracker.backfill("t", thread: Self.finishedThread("t", cwd: "/x")["thread"] ?? .null)
        // turn/started was published before; m1 comes from the buffer: only u1 and the turn's end are backfilled.
        #expect(events.map(\.method) == ["item/completed", "turn/completed"])
        #expect(events.first?.data["item"]?["id"]?.stringValue == "u1")
        let buffered = tracker.endResume("t", following: 1)
        #expect(buffered.map(\.method) == ["item/completed"])
        #expect(tracker.entries["t"]?.follow == .following(generation: 1))
    }
}
