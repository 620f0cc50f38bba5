import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Testing

@testable import BridgeHub

/// The hub in-process: a fake Codex, a real SQLite journal, sessions read from their recording sinks.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubTests {
    @Test func startThreadStreamsNumberedEventsAndRemembersThePolicy() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session()
        let answer = await harness.request(
            BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "hi", sandbox: "read-only")), phone)
        guard case .response(_, .threadStarted(let started)) = answer else {
            Issue.record("\(answer)")
            return
        }
        #expect(started.threadId == "t1" && started.turnId == "turn-1")
        // Policy named explicitly on both thread/start and turn/start.
        #expect(harness.codex.requests("thread/start").first?["sandbox"]?.stringValue == "read-only")
        #expect(harness.codex.requests("turn/start").first?["sandboxPolicy"]?["type"]?.stringValue == "readOnly")
        #expect(try await harness.storage.threadPolicies.entry(for: "t1")?.sandbox == "read-only")

        await harness.codex.notify("turn/started", ["threadId": "t1", "turn": ["id": "turn-1"]])
        await harness.codex.notify("item/agentMessage/delta", ["threadId": "t1", "turnId": "turn-1", "delta": "Hel"])
        await harness.codex.notify("turn/completed", ["threadId": "t1", "turn": ["id": "turn-1", "status": "completed"]])
        let frames = try await harness.waitFor(phone) { $0.event?.type == "turn/completed" }
        let events = frames.compactMap(\.event)
        #expect(events.map(\.type) == ["turn/started", "item/agentMessage/delta", "turn/completed"])
        #expect(events.map(\.seq) == events.map(\.seq).sorted() && Set(events.map(\.seq)).count == 3)
        #expect(try harness.storage.journal.lastSeq() == events.last?.seq)
    }

    @Test func requestsForAThreadOutsideTheRootsNeverReachCodex() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("foreign", cwd: harness.outside)
        let phone = await harness.session()
        let requests: [BridgeRequest] = [
            BridgeRequest(.sendMessage, SendMessage(threadId: "foreign", text: "rm -rf ~")),
            BridgeRequest(.interrupt, ThreadRef(threadId: "foreign")),
            BridgeRequest(.readThread, ReadThread(threadId: "foreign")), BridgeRequest(.getDiff, ThreadRef(threadId: "foreign")),
            BridgeRequest(.subscribe, Subscribe(threadId: "foreign")),
        ]
        for request in requests {
            #expect(await harness.request(request, phone).errorCode == .forbiddenPath, "\(request.kind)")
        }
        let touched = Set(harness.codex.requests.map(\.method))
        #expect(touched == ["thread/read"])  // only to learn the thread's cwd
        #expect(await harness.request(BridgeRequest(.readThread, ReadThread(threadId: "nope")), phone).errorCode == .notFound)
    }

    @Test func storedDangerIsNotInheritedOnResume() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("cli", cwd: harness.project, turnId: "turn-9")
        // A thread another tool started with danger-full-access; this bridge allows only the defaults.
        try await harness.storage.threadPolicies.remember(.init(sandbox: "danger-full-access", approvalPolicy: "never"), for: "cli")
        let phone = await harness.session()
        let answer = await harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "cli", text: "go on")), phone)
        guard case .response(_, .accepted) = answer else {
            Issue.record("\(answer)")
            return
        }
        let resume = try #require(harness.codex.requests("thread/resume").first)
        #expect(resume["sandbox"]?.stringValue == "workspace-write" && resume["approvalPolicy"]?.stringValue == "on-request")
        #expect(harness.codex.requests("turn/start").first?["sandboxPolicy"]?["type"]?.stringValue == "workspaceWrite")
    }

    @Test func approvalsFirstAnswerWinsAndEveryoneSeesIt() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let first = await harness.session(deviceId: "dev-a")
        let second = await harness.session(deviceId: "dev-b")
        for session in [first, second] {
            _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), session)
        }
        _ = await harness.request(BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "p")), first)
        await harness.codex.ask(
            7, "item/commandExecution/requestApproval", ["threadId": "t1", "turnId": "turn-1", "itemId": "i1", "command": "touch x"])
        let asked = try await harness.waitFor(second) { if case .approvalRequest = $0 { true } else { false } }
        guard case .approvalRequest(let approval)? = asked.first(where: { if case .approvalRequest = $0 { true } else { false } }) else {
            return
        }
        _ = harness.frames(first)
        // Both answer; exactly one reaches Codex.
        async let a = harness.request(BridgeRequest(.approve, Approve(approvalId: approval.approvalId, decision: .accept)), first)
        async let b = harness.request(BridgeRequest(.approve, Approve(approvalId: approval.approvalId, decision: .decline)), second)
        let answers = await [a, b]
        #expect(answers.filter { $0.errorCode == nil }.count == 1)
        #expect(answers.filter { $0.errorCode == .approvalNotPending }.count == 1)
        #expect(harness.codex.responses.count == 1)
        for session in [first, second] {
            let resolved = try await harness.waitFor(session) { if case .approvalResolved = $0 { true } else { false } }
            #expect(resolved.contains { if case .approvalResolved(let r) = $0 { r.approvalId == approval.approvalId } else { false } })
        }
    }

    /// Regression (found by the web app's tests): the approvals pending on a device's restored subscriptions
    /// were queued during `sessionOpened`, i.e. before the connection queued its helloAck.
    @Test func nothingPrecedesTheHelloAck() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session(deviceId: "dev-a")
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        _ = await harness.request(BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "p")), phone)
        await harness.codex.ask(
            5, "item/commandExecution/requestApproval", ["threadId": "t1", "turnId": "turn-1", "itemId": "i", "command": "ls"])
        _ = try await harness.waitFor(phone) { if case .approvalRequest = $0 { true } else { false } }
        await harness.hub.sessionClosed(phone)

        let again = ClientSession(
            id: 9_999, principal: .device(id: "dev-a"), hello: Hello(), remoteAddress: "127.0.0.1",
            logger: phone.logger, sink: RecordingSink(capacity: 64), onOverflow: {})
        let opening = await harness.hub.sessionOpened(again)
        #expect(opening.restoredSubscriptions?.contains("*") == true)
        // A live event between the handshake and the ack waits too.
        let before = try harness.storage.journal.lastSeq()
        await harness.codex.notify("item/agentMessage/delta", ["threadId": "t1", "turnId": "turn-1", "delta": "x"])
        try await harness.processed(after: before)
        #expect(harness.frames(again).isEmpty)
        await harness.hub.sessionReady(again)
        let after = try await harness.waitFor(again) { $0.event != nil }
        #expect(after.first.map { if case .approvalRequest = $0 { true } else { false } } == true)
    }

    @Test func requestsCodexCannotRelayAreAnsweredNotLeftHanging() async throws {
        let harness = try await HubHarness()
        await harness.codex.ask(3, "account/chatgptAuthTokens/refresh", ["reason": "unauthorized"])
        try await harness.until("an answer") { !harness.codex.responses.isEmpty }
        #expect(harness.codex.responses.first?.errorCode == -32601)
    }

    @Test func resumeReplaysTheJournalExactlyOnceThenGoesLive() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session(deviceId: "dev-a")
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), phone)
        for index in 0..<50 {
            await harness.codex.notify("item/agentMessage/delta", ["threadId": "t1", "turnId": "turn-1", "delta": .string("\(index)")])
        }
        let live = try await harness.waitFor(phone) { $0.event?.data["delta"]?.stringValue == "49" }.compactMap(\.event)
        #expect(live.count == 50)
        // The phone reconnects from the 20th event while more arrive: 30 replayed + 10 live, each once.
        let cursor = live[19].seq
        await harness.hub.sessionClosed(phone)
        let again = await harness.session(deviceId: "dev-a")
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1", afterSeq: cursor)), again)
        for index in 50..<60 {
            await harness.codex.notify("item/agentMessage/delta", ["threadId": "t1", "turnId": "turn-1", "delta": .string("\(index)")])
        }
        let resumed = try await harness.waitFor(again) { $0.event?.data["delta"]?.stringValue == "59" }.compactMap(\.event)
        #expect(resumed.map { $0.data["delta"]?.stringValue ?? "" } == (20..<60).map { "\($0)" })
    }

    @Test func aRestartedBridgeReportsTheTurnsItLeftOpen() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        do {
            let harness = try await HubHarness(directory: directory)
            harness.codexKnowsThread("t1", cwd: harness.project)
            let phone = await harness.session()
            _ = await harness.request(BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "p")), phone)
            await harness.codex.notify("turn/started", ["threadId": "t1", "turn": ["id": "turn-1"]])
            _ = try await harness.waitFor(phone) { $0.event?.type == "turn/started" }
        }
        let restarted = try await HubHarness(directory: directory)
        restarted.codexKnowsThread("t1", cwd: restarted.project)
        let phone = await restarted.session()
        _ = await restarted.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1", afterSeq: 0)), phone)
        let frames = try await restarted.waitFor(phone) { $0.event?.type == "bridge/turnFailed" }
        #expect(frames.compactMap(\.event).last?.data["reason"]?.stringValue == "bridge restarted")
        // Resumed in the new Codex with the remembered policy, explicitly.
        try await restarted.until("thread/resume") { !restarted.codex.requests("thread/resume").isEmpty }
        #expect(restarted.codex.requests("thread/resume").first?["sandbox"]?.stringValue == "workspace-write")
    }

    @Test func modelsAndEffortsAreCheckedAgainstWhatCodexOffers() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        harness.codex.on("model/list") { _ in
            [
                "data": [
                    [
                        "id": "gpt-x", "displayName": "GPT X", "isDefault": true, "defaultReasoningEffort": "medium",
                        "supportedReasoningEfforts": [["reasoningEffort": "low"], ["reasoningEffort": "medium"]],
                    ],
                    ["id": "secret", "displayName": "Hidden", "hidden": true],
                ]
            ]
        }
        let phone = await harness.session()
        guard case .response(_, .models(let list)) = await harness.request(BridgeRequest(.listModels, ListModels()), phone) else {
            Issue.record("no models")
            return
        }
        #expect(
            list.models == [
                ModelInfo(id: "gpt-x", displayName: "GPT X", efforts: ["low", "medium"], defaultEffort: "medium", isDefault: true)
            ])
        #expect(
            await harness.request(BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "p", model: "nope")), phone)
                .errorCode
                == .badRequest)
        #expect(
            await harness.request(BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "p", effort: "ultra")), phone)
                .errorCode
                == .badRequest)
        #expect(harness.codex.requests("thread/start").isEmpty)
        guard
            case .response = await harness.request(
                BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "go", model: "gpt-x", effort: "low")), phone)
        else {
            Issue.record("sendMessage refused")
            return
        }
        let turn = try #require(harness.codex.requests("turn/start").last)
        #expect(turn["model"]?.stringValue == "gpt-x" && turn["effort"]?.stringValue == "low")
    }

    @Test func housekeepingAndFilesPassTheGate() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        harness.codex.on("thread/name/set") { _ in [:] }
        harness.codex.on("thread/archive") { _ in [:] }
        let phone = await harness.session()
        let project = harness.project
        try "hello\n".write(toFile: project + "/notes.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: project + "/.git", withIntermediateDirectories: true)
        try "[core]\n".write(toFile: project + "/.git/config", atomically: true, encoding: .utf8)
        try "secret\n".write(toFile: harness.outside + "/secret.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: project + "/leak", withDestinationPath: harness.outside + "/secret.txt")
        try Data(count: (1 << 20) + 1).write(to: URL(fileURLWithPath: project + "/big.bin"))

        guard
            case .response(_, .file(let file)) = await harness.request(
                BridgeRequest(.readFile, ReadFile(threadId: "t1", path: "notes.txt")), phone)
        else {
            Issue.record("notes.txt not read")
            return
        }
        #expect(file.text == "hello\n" && file.size == 6 && file.base64 == nil)
        for path in ["../outside/secret.txt", harness.outside + "/secret.txt", "leak", ".git/config", "missing.txt", "."] {
            #expect(
                await harness.request(BridgeRequest(.readFile, ReadFile(threadId: "t1", path: path)), phone).errorCode == .forbiddenPath,
                "\(path)")
        }
        #expect(await harness.request(BridgeRequest(.readFile, ReadFile(threadId: "t1", path: "big.bin")), phone).errorCode == .tooLarge)

        #expect(
            await harness.request(BridgeRequest(.renameThread, RenameThread(threadId: "t1", name: "Fix tests")), phone).errorCode == nil)
        #expect(harness.codex.requests("thread/name/set").first?["name"]?.stringValue == "Fix tests")
        #expect(
            await harness.request(BridgeRequest(.renameThread, RenameThread(threadId: "t1", name: "a\u{1B}[31m")), phone).errorCode
                == .badRequest)
        #expect(await harness.request(BridgeRequest(.archiveThread, ThreadRef(threadId: "t1")), phone).errorCode == nil)

        harness.codexKnowsThread("foreign", cwd: harness.outside)
        #expect(
            await harness.request(BridgeRequest(.renameThread, RenameThread(threadId: "foreign", name: "x")), phone).errorCode
                == .forbiddenPath)
        #expect(await harness.request(BridgeRequest(.archiveThread, ThreadRef(threadId: "foreign")), phone).errorCode == .forbiddenPath)
        #expect(
            await harness.request(BridgeRequest(.readFile, ReadFile(threadId: "foreign", path: "secret.txt")), phone).errorCode
                == .forbiddenPath)
    }

    @Test func usageIsCodexsRateLimitsOrItsReasonWhyNot() async throws {
        let harness = try await HubHarness()
        let phone = await harness.session()
        harness.codex.on("account/rateLimits/read") { _ in ["rateLimits": ["primary": ["usedPercent": 42]]] }
        guard case .response(_, .usage(let usage)) = await harness.request(BridgeRequest(.usage, UsageRequest()), phone) else {
            Issue.record("no usage")
            return
        }
        #expect(usage.rateLimits["primary"]?["usedPercent"]?.intValue == 42)
        harness.codex.on("account/rateLimits/read") { _ in
            throw CodexError.rpc(code: -32600, message: "codex account authentication required to read rate limits")
        }
        guard case .error(let error) = await harness.request(BridgeRequest(.usage, UsageRequest()), phone) else {
            Issue.record("expected an error")
            return
        }
        #expect(error.code == .codexError && error.message.contains("authentication required"))
    }

    @Test func listThreadsShowsOnlyThreadsInsideTheRoots() async throws {
        let harness = try await HubHarness()
        let project = harness.project
        let outside = harness.outside
        harness.codex.on("thread/list") { _ in
            ["data": [["id": "in", "cwd": .string(project)], ["id": "out", "cwd": .string(outside)], ["id": "none"]]]
        }
        let phone = await harness.session()
        guard case .response(_, .threads(let list)) = await harness.request(BridgeRequest(.listThreads, ListThreads()), phone) else {
            Issue.record("no list")
            return
        }
        #expect(list.threads.map(\.threadId) == ["in"])
    }
}
