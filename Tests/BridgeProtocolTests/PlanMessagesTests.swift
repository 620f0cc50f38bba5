import Foundation
import Testing

@testable import BridgeProtocol

/// Issue 26's wire forms: collaboration modes, goals, and what `thread`/`threads` answers carry beside Codex's.
@Suite struct PlanMessagesTests {
    func decode(_ json: String) throws(FrameDecodingError) -> ClientMessage { try ClientMessage.decode(Data(json.utf8)) }

    @Test func collaborationModeOnStartAndSend() throws {
        let start = try decode(#"{"kind":"startThread","id":"1","cwd":"/w","prompt":"p","collaborationMode":"plan"}"#)
        guard case .request(_, let request) = start, request.requestKind == .startThread, let s = request.payload(as: StartThread.self)
        else { throw Failure() }
        #expect(s.collaborationMode == .plan)
        let send = try decode(#"{"kind":"sendMessage","id":"2","threadId":"t","text":"x","collaborationMode":"default"}"#)
        guard case .request(_, let request) = send, request.requestKind == .sendMessage, let m = request.payload(as: SendMessage.self)
        else { throw Failure() }
        #expect(m.collaborationMode == .default)
        #expect(throws: FrameDecodingError.self) {
            try decode(#"{"kind":"sendMessage","id":"3","threadId":"t","text":"x","collaborationMode":"planning"}"#)
        }
        let plain = try decode(#"{"kind":"sendMessage","id":"4","threadId":"t","text":"x"}"#)
        guard case .request(_, let request) = plain, request.requestKind == .sendMessage, let none = request.payload(as: SendMessage.self)
        else { throw Failure() }
        #expect(none.collaborationMode == nil)
    }

    @Test func goalRequestsRoundTrip() throws {
        let set = try decode(#"{"kind":"setGoal","id":"g","threadId":"t","objective":"ship","tokenBudget":5000}"#)
        #expect(set == .request(id: "g", BridgeRequest(.setGoal, SetGoal(threadId: "t", objective: "ship", tokenBudget: 5000))))
        let clear = try decode(#"{"kind":"clearGoal","id":"c","threadId":"t"}"#)
        #expect(clear == .request(id: "c", BridgeRequest(.clearGoal, ThreadRef(threadId: "t"))))
        #expect(throws: FrameDecodingError.self) { try decode(#"{"kind":"setGoal","id":"g","threadId":"t"}"#) }
        for message in [set, clear] {
            #expect(try ClientMessage.decode(message.encoded()) == message)
        }
        guard case .request(_, let request) = set else { throw Failure() }
        #expect(request.threadId == "t")
    }

    @Test func answersCarryGoalModeAndPlans() throws {
        let goal = ThreadGoal(objective: "ship", status: "active", tokenBudget: 10, tokensUsed: 2)
        let snapshot = ThreadSnapshot(
            thread: ["id": "t"], goal: goal, collaborationMode: .plan,
            plans: [TurnPlan(turnId: "u", explanation: "e", plan: [PlanStep(step: "a", status: "inProgress")])])
        for message in [
            ServerMessage.response(id: "1", .thread(snapshot)), .response(id: "2", .goal(GoalSet(threadId: "t", goal: goal))),
            .response(id: "3", .threads(ThreadList(threads: [ThreadSummary(threadId: "t", goal: goal, collaborationMode: .default)]))),
        ] {
            #expect(try ServerMessage.decode(message.encoded()) == message)
        }
        let text = String(decoding: try ServerMessage.response(id: "1", .thread(snapshot)).encoded(), as: UTF8.self)
        #expect(
            text.contains(#""collaborationMode":"plan""#)
                && text.contains(#""plans":[{"explanation":"e","plan":[{"status":"inProgress","step":"a"}],"turnId":"u"}]"#))
    }

    struct Failure: Error {}
}
