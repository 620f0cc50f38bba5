import BridgeProtocol
import BridgeStore
import Foundation
import Testing

@testable import BridgeHub

/// The running turn's items as its journaled events built them (issue 37 item 2), and what an answer says about
/// a question (item 4): pure parts, tested alone.
@Suite struct TurnSoFarTests {
    static func frame(_ type: String, _ data: String, turn: String = "u1") -> String {
        #"{"kind":"event","seq":1,"threadId":"t","turnId":"\#(turn)","type":"\#(type)","data":\#(data)}"#
    }

    @Test func deltasBuildTheTextSoFarAndACompletedItemWins() throws {
        var soFar = TurnSoFar(turnId: "u1")
        soFar.apply(frame: Self.frame("item/started", #"{"item":{"id":"m1","type":"agentMessage","text":""}}"#))
        soFar.apply(frame: Self.frame("item/agentMessage/delta", #"{"itemId":"m1","delta":"Hel"}"#))
        soFar.apply(frame: Self.frame("item/agentMessage/delta", #"{"itemId":"m1","delta":"lo"}"#))
        soFar.apply(frame: Self.frame("item/agentMessage/delta", #"{"itemId":"x","delta":"other turn"}"#, turn: "u0"))
        soFar.apply(frame: Self.frame("item/reasoning/summaryTextDelta", #"{"itemId":"r1","delta":"think","summaryIndex":1}"#))
        soFar.apply(frame: Self.frame("item/started", #"{"item":{"id":"c1","type":"commandExecution","command":"ls"}}"#))
        soFar.apply(frame: Self.frame("item/commandExecution/outputDelta", #"{"itemId":"c1","delta":"a.txt\n"}"#))
        soFar.apply(
            frame: Self.frame("item/completed", #"{"item":{"id":"c1","type":"commandExecution","command":"ls","status":"completed"}}"#))
        soFar.apply(frame: Self.frame("item/commandExecution/outputDelta", #"{"itemId":"c1","delta":"late"}"#))
        soFar.apply(frame: #"{"kind":"approvalRequest","seq":2,"threadId":"t","turnId":"u1"}"#)
        #expect(soFar.order == ["m1", "r1", "c1"])
        #expect(soFar.items["m1"] == ["id": "m1", "type": "agentMessage", "text": "Hello", "status": "inProgress"])
        #expect(soFar.items["r1"]?["summary"] == .array(["", "think"]))
        #expect(soFar.items["c1"] == ["id": "c1", "type": "commandExecution", "command": "ls", "status": "completed"])
    }

    @Test func itemsCodexLacksAreAddedToItsTurnAndItsOwnRecordsStay() throws {
        var soFar = TurnSoFar(turnId: "u1")
        soFar.apply(frame: Self.frame("item/agentMessage/delta", #"{"itemId":"m1","delta":"so far"}"#))
        soFar.apply(frame: Self.frame("item/started", #"{"item":{"id":"q","type":"userMessage"}}"#))
        let codex = try JSONValue(
            parsing: Data(
                #"{"id":"t","turns":[{"id":"u0","status":"completed","items":[]},{"id":"u1","status":"inProgress","items":[{"id":"q","type":"userMessage","content":[]}]}]}"#
                    .utf8))
        let merged = soFar.merged(into: codex)
        let items = merged["turns"]?.arrayValue?[1]["items"]?.arrayValue ?? []
        #expect(items.map { $0["id"]?.stringValue } == ["q", "m1"])
        #expect(items[0]["content"] == .array([]))  // Codex's complete record, not the journal's
        #expect(items[1]["text"] == "so far" && items[1]["status"] == "inProgress")
        // A turn Codex's object does not have yet is added.
        let bare = soFar.merged(into: try JSONValue(parsing: Data(#"{"id":"t","turns":[]}"#.utf8)))
        #expect(bare["turns"]?.arrayValue?.first?["id"] == "u1" && bare["turns"]?.arrayValue?.first?["status"] == "inProgress")
        // Nothing folded: Codex's object as it was.
        #expect(TurnSoFar(turnId: "u1").merged(into: codex) == codex)
    }

    @Test func aQuestionsAnswerIsShownButNeverASecretOne() {
        let questions: JSONValue = .array([
            ["id": "colour", "question": "Which colour?", "isSecret": false], ["id": "pin", "question": "PIN?", "isSecret": true],
        ])
        let request = InputRequest(seq: 1, requestId: "in-1", threadId: "t", type: "userInput", questions: questions)
        let answer = AnswerInput(requestId: "in-1", answers: ["colour": ["Blue"], "pin": ["1234"]])
        let shown = ShownAnswer(answer, action: .accept, to: request)
        #expect(shown.answers == ["colour": ["Blue"]] && shown.content == nil)
        let declined = ShownAnswer(answer, action: .decline, to: request)
        #expect(declined.answers == nil && declined.content == nil)
        let form = InputRequest(seq: 2, requestId: "in-2", threadId: "t", type: "elicitation", message: "Name?")
        let filled = AnswerInput(requestId: "in-2", content: ["name": "Ana"], action: .accept)
        #expect(ShownAnswer(filled, action: .accept, to: form).content == ["name": "Ana"])
    }

    @Test func aDeviceNameIsOneToSixtyFourCharactersWithoutControls() {
        #expect(DeviceRegistry.validName("  Ana's iPad 📱 ") == "Ana's iPad 📱")
        #expect(DeviceRegistry.validName(String(repeating: "é", count: 64)) != nil)
        for bad in [
            "", "   ", String(repeating: "x", count: 65), "a\u{7}b", "line\u{2028}two", "\u{202E}txt.exe", "x\u{2066}y", "c1\u{85}inside",
        ] {
            #expect(DeviceRegistry.validName(bad) == nil, "\(bad.debugDescription)")
        }
    }
}
