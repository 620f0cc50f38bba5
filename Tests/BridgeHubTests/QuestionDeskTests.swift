import BridgeProtocol
import CodexControl
import Testing

@testable import BridgeHub

@Suite struct QuestionDeskTests {
    private func question(_ seq: Int64, _ id: String, thread: String = "t", type: String = "userInput") -> InputRequest {
        InputRequest(
            seq: seq, requestId: id, threadId: thread, type: type,
            questions: [["id": "color", "question": "Which?", "options": [["label": "red"]]]],
            schema: ["properties": ["name": ["type": "string"]], "required": ["name"]])
    }

    @Test func codexsQuestionBecomesAnInputRequestWithItsFields() {
        let params: JSONValue = [
            "threadId": "t", "turnId": "u", "itemId": "i", "message": "Sign in?", "requestedSchema": ["type": "object"],
            "url": "https://example.invalid/", "serverName": "docs",
        ]
        let request = QuestionDesk.request(seq: 3, requestId: "in-1", threadId: "t", type: "elicitation", params: params)
        #expect(
            request
                == InputRequest(
                    seq: 3, requestId: "in-1", threadId: "t", turnId: "u", itemId: "i", type: "elicitation", message: "Sign in?",
                    schema: ["type": "object"], url: "https://example.invalid/", serverName: "docs"))
        #expect(QuestionDesk.notPending("in-9").code == .inputNotPending)
    }

    @Test func aQuestionWaitsForItsFirstAnswerOnly() throws {
        var desk = QuestionDesk()
        desk.asked(question(5, "in-1"), codexId: CodexRequestID(generation: 1, value: 7))
        #expect(desk.thread(of: "in-1") == "t")
        #expect(try desk.pendingThread(of: "in-1") == "t")
        desk.answered("in-1")
        #expect(desk["in-1"] == nil)
        #expect(desk.thread(of: "in-1") == nil)  // a second answer finds nothing pending
        #expect(throws: HubError.self) { try desk.pendingThread(of: "in-1") }
    }

    @Test func withdrawingTakesTheMatchingOnesOldestFirst() {
        var desk = QuestionDesk()
        desk.asked(question(9, "in-3", thread: "u"), codexId: CodexRequestID(generation: 2, value: 3))
        desk.asked(question(4, "in-1"), codexId: CodexRequestID(generation: 1, value: 1))
        desk.asked(question(6, "in-2"), codexId: CodexRequestID(generation: 1, value: 2))
        #expect(desk.open(on: "*").map(\.requestId) == ["in-1", "in-2", "in-3"])
        #expect(desk.open(on: "u").map(\.requestId) == ["in-3"])
        let stopped = desk.withdraw { $0.codexId.generation == 1 }
        #expect(stopped.map(\.request.requestId) == ["in-1", "in-2"])
        #expect(desk.open(on: "*").map(\.requestId) == ["in-3"])
    }

    @Test func eachRefusedMethodIsLoggedOnceAndTheMemoryIsBounded() {
        var desk = QuestionDesk()
        let first = desk.isFirstRefusal(of: "item/tool/call")
        let again = desk.isFirstRefusal(of: "item/tool/call")
        #expect(first && !again)
        for n in 0..<(QuestionDesk.maxRefusedMethods + 10) { _ = desk.isFirstRefusal(of: "m\(n)") }
        #expect(desk.refusedMethods.count == QuestionDesk.maxRefusedMethods)
    }

    @Test func answersTakeTheShapeCodexExpectsForEachKind() throws {
        let asked = question(1, "in-1")
        let chosen = try QuestionDesk.codexAnswer(
            AnswerInput(requestId: "in-1", answers: ["color": ["red"]]), action: .accept, to: asked)
        #expect(chosen == ["answers": ["color": ["answers": ["red"]]]])
        #expect(try QuestionDesk.codexAnswer(AnswerInput(requestId: "in-1"), action: .decline, to: asked) == ["answers": [:]])
        #expect(throws: HubError.self) {
            try QuestionDesk.codexAnswer(AnswerInput(requestId: "in-1", answers: ["size": ["L"]]), action: .accept, to: asked)
        }
        let form = question(2, "in-2", type: "elicitation")
        let filled = try QuestionDesk.codexAnswer(
            AnswerInput(requestId: "in-2", content: ["name": "x"]), action: .accept, to: form)
        #expect(filled == ["action": "accept", "content": ["name": "x"]])
        #expect(throws: HubError.self) {
            try QuestionDesk.codexAnswer(AnswerInput(requestId: "in-2", content: [:]), action: .accept, to: form)
        }
        #expect(
            try QuestionDesk.codexAnswer(AnswerInput(requestId: "in-2"), action: .cancel, to: form) == [
                "action": "cancel", "content": .null,
            ])
    }
}
