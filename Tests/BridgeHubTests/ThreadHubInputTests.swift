import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Testing

@testable import BridgeHub

/// The agent's questions (`inputRequest` / `answerInput`), permission approvals, and Codex requests the bridge
/// does not relay — in-process with a fake Codex.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubInputTests {
    static let userInput: JSONValue = [
        "threadId": "t1", "turnId": "turn-1", "itemId": "call-1", "isBlocking": true,
        "questions": [
            [
                "id": "color", "header": "Colour", "question": "Which colour?", "isOther": false, "isSecret": false,
                "options": [["label": "Red", "description": "warm"], ["label": "Blue", "description": "cool"]],
            ]
        ],
    ]

    func asked(_ harness: HubHarness, _ session: ClientSession) async throws -> InputRequest {
        let frames = try await harness.waitFor(session) { if case .inputRequest = $0 { true } else { false } }
        for case .inputRequest(let request) in frames { return request }
        throw CancellationError()
    }

    @Test func aQuestionIsAnsweredOnceAndEveryoneSeesIt() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let first = await harness.session(deviceId: "dev-a")
        let second = await harness.session(deviceId: "dev-b")
        for session in [first, second] { _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), session) }
        _ = await harness.request(BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "p")), first)
        await harness.codex.ask(11, "item/tool/requestUserInput", Self.userInput)
        let question = try await asked(harness, second)
        #expect(question.type == "userInput" && question.threadId == "t1" && question.turnId == "turn-1")
        #expect(question.questions?.arrayValue?.first?["options"]?.arrayValue?.last?["label"]?.stringValue == "Blue")
        _ = try await asked(harness, first)

        // Wrong answers leave the question pending.
        let unknown = await harness.request(
            BridgeRequest(.answerInput, AnswerInput(requestId: question.requestId, answers: ["size": ["L"]])), first)
        #expect(unknown.errorCode == .badRequest)
        #expect(
            await harness.request(BridgeRequest(.answerInput, AnswerInput(requestId: question.requestId)), first).errorCode == .badRequest)
        #expect(harness.codex.responses.isEmpty)

        async let a = harness.request(
            BridgeRequest(.answerInput, AnswerInput(requestId: question.requestId, answers: ["color": ["Blue"]])), first)
        async let b = harness.request(BridgeRequest(.answerInput, AnswerInput(requestId: question.requestId, action: .decline)), second)
        let answers = await [a, b]
        #expect(answers.filter { $0.errorCode == nil }.count == 1)
        #expect(answers.filter { $0.errorCode == .inputNotPending }.count == 1)
        #expect(harness.codex.responses.count == 1)
        let result = try #require(harness.codex.responses.first?.result)
        #expect(result == ["answers": ["color": ["answers": ["Blue"]]]] || result == ["answers": [:]])
        for session in [first, second] {
            let frames = try await harness.waitFor(session) { if case .inputResolved = $0 { true } else { false } }
            #expect(frames.contains { if case .inputResolved(let r) = $0 { r.requestId == question.requestId } else { false } })
        }
        // Stale and unknown ids: a clear error, nothing else affected.
        let stale = await harness.request(
            BridgeRequest(.answerInput, AnswerInput(requestId: question.requestId, answers: ["color": ["Red"]])), first)
        #expect(stale.errorCode == .inputNotPending)
        #expect(
            await harness.request(BridgeRequest(.answerInput, AnswerInput(requestId: "in-nope", action: .cancel)), first).errorCode
                == .inputNotPending)
        #expect(harness.codex.responses.count == 1)
    }

    @Test func anElicitationTakesContentFollowingItsSchema() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        await harness.codex.ask(
            12, "mcpServer/elicitation/request",
            [
                "threadId": "t1", "turnId": "turn-1", "serverName": "tickets", "mode": "form", "message": "Which ticket?",
                "requestedSchema": ["type": "object", "properties": ["id": ["type": "integer"]], "required": ["id"]],
            ])
        let question = try await asked(harness, phone)
        #expect(question.type == "elicitation" && question.message == "Which ticket?" && question.serverName == "tickets")
        #expect(question.schema?["required"] == ["id"])
        let missing = AnswerInput(requestId: question.requestId, content: ["other": 1], action: .accept)
        #expect(await harness.request(BridgeRequest(.answerInput, missing), phone).errorCode == .badRequest)
        let good = AnswerInput(requestId: question.requestId, content: ["id": 42], action: .accept)
        #expect(await harness.request(BridgeRequest(.answerInput, good), phone).errorCode == nil)
        #expect(harness.codex.responses.first?.result == ["action": "accept", "content": ["id": 42]])
    }

    @Test func aQuestionOutsideTheRootsCannotBeAnswered() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("foreign", cwd: harness.outside)
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        var params = Self.userInput
        if case .object(var object) = params {
            object["threadId"] = "foreign"
            params = .object(object)
        }
        await harness.codex.ask(13, "item/tool/requestUserInput", params)
        let question = try await asked(harness, phone)
        let answer = await harness.request(
            BridgeRequest(.answerInput, AnswerInput(requestId: question.requestId, answers: ["color": ["Red"]])), phone)
        #expect(answer.errorCode == .forbiddenPath)
        #expect(harness.codex.responses.isEmpty)
    }

    @Test func theEndOfTheTurnWithdrawsItsQuestionsAndLateSubscribersSeeOpenOnes() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), phone)
        await harness.codex.ask(14, "item/tool/requestUserInput", Self.userInput)
        let question = try await asked(harness, phone)
        let late = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), late)
        #expect(try await asked(harness, late).requestId == question.requestId)
        await harness.codex.notify("turn/completed", ["threadId": "t1", "turn": ["id": "turn-1", "status": "interrupted"]])
        let frames = try await harness.waitFor(phone) { if case .inputResolved = $0 { true } else { false } }
        #expect(frames.contains { if case .inputResolved(let r) = $0 { r.action == .cancel } else { false } })
        #expect(
            await harness.request(BridgeRequest(.answerInput, AnswerInput(requestId: question.requestId, action: .accept)), phone).errorCode
                == .inputNotPending)
    }

    @Test func aRestartedBridgeWithdrawsTheQuestionsItLeftOpen() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        var requestId = ""
        do {
            let harness = try await HubHarness(directory: directory)
            harness.codexKnowsThread("t1", cwd: harness.project)
            let phone = await harness.session()
            _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), phone)
            await harness.codex.ask(15, "item/tool/requestUserInput", Self.userInput)
            requestId = try await asked(harness, phone).requestId
        }
        let restarted = try await HubHarness(directory: directory)
        restarted.codexKnowsThread("t1", cwd: restarted.project)
        let phone = await restarted.session()
        _ = await restarted.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1", afterSeq: 0)), phone)
        let frames = try await restarted.waitFor(phone) { if case .inputResolved = $0 { true } else { false } }
        #expect(frames.contains { if case .inputResolved(let r) = $0 { r.requestId == requestId && r.action == .cancel } else { false } })
        let stale = await restarted.request(
            BridgeRequest(.answerInput, AnswerInput(requestId: requestId, answers: ["color": ["Red"]])), phone)
        #expect(stale.errorCode == .inputNotPending)
    }

    @Test func permissionApprovalsGrantWhatWasAskedOrNothing() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        let asked: JSONValue = ["network": ["enabled": true]]
        for (number, decision) in [(21, ApprovalDecision.acceptForSession), (22, .decline)] {
            await harness.codex.ask(
                number, "item/permissions/requestApproval",
                [
                    "threadId": "t1", "turnId": "turn-1", "itemId": "p", "cwd": .string(harness.project), "permissions": asked,
                    "startedAtMs": 1,
                ])
            let frames = try await harness.waitFor(phone) { if case .approvalRequest = $0 { true } else { false } }
            guard case .approvalRequest(let approval)? = frames.first(where: { if case .approvalRequest = $0 { true } else { false } })
            else {
                return
            }
            #expect(approval.type == "permissions" && approval.changes == asked)
            #expect(
                await harness.request(BridgeRequest(.approve, Approve(approvalId: approval.approvalId, decision: decision)), phone)
                    .errorCode == nil)
        }
        #expect(
            harness.codex.responses.map(\.result) == [["permissions": asked, "scope": "session"], ["permissions": [:], "scope": "turn"]])
    }

    @Test func everyOtherServerRequestIsRefusedAtOnceAndLoggedOnce() async throws {
        let harness = try await HubHarness()
        for number in 31...33 { await harness.codex.ask(number, "item/tool/call", ["threadId": "t1", "tool": "x"]) }
        await harness.codex.ask(34, "attestation/generate", [:])
        try await harness.until("four answers") { harness.codex.responses.count >= 4 }
        #expect(harness.codex.responses.map(\.errorCode) == [-32601, -32601, -32601, -32601])
        #expect(await harness.hub.desks.questions.refusedMethods == ["item/tool/call", "attestation/generate"])
    }
}
