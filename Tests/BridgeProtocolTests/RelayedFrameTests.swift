import BridgeProtocol
import Foundation
import Testing

/// The fleet's relay reads a linked bridge's event frames without a JSONValue tree: what it finds must be what the
/// full decoder finds, and anything it cannot vouch for is left to the full decoder.
@Suite struct RelayedFrameTests {
    @Test func anEventFrameIsFoundAsTheDecoderFindsItAndReencodesByteForByte() throws {
        let data: JSONValue = .object([
            "delta": .string("héllo \"quoted\" \\ \u{1F600} </script>"), "n": .number(-1.5e3),
            "list": .array([.null, .bool(true), .object([:])]),
        ])
        for turnId in [String?.none, "u1"] {
            let message = ServerMessage.event(
                ThreadEvent(seq: 42, threadId: "0199-t", turnId: turnId, type: "item/agentMessage/delta", data: data))
            let text = try message.encodedText()
            let frame = try #require(RelayedFrame.scanEvent(text))
            guard case .event(let event) = frame.message else { throw Failure() }
            #expect(event.seq == 42 && event.threadId == "0199-t" && event.turnId == turnId && event.type == "item/agentMessage/delta")
            let dataJSON = try #require(frame.eventDataJSON)
            #expect(try JSONValue(parsing: Data(dataJSON.utf8)) == data)
            #expect(try frame.message.encodedText(eventDataJSON: dataJSON) == text)
        }
        // Members in another order, whitespace, an unknown member, a null turnId: still an event.
        let loose =
            #" { "type" : "t/x", "extra": [1, {"a": "b"}], "seq": 7, "turnId": null, "threadId": "th", "kind": "event", "data": {"k": [1,2]} } "#
        let frame = try #require(RelayedFrame.scanEvent(loose))
        #expect(frame.eventDataJSON == #"{"k": [1,2]}"# && frame.message.seq == 7)
    }

    @Test func whatTheScanCannotVouchForIsLeftToTheDecoder() throws {
        let approval = ServerMessage.approvalRequest(
            ApprovalRequest(seq: 1, approvalId: "a", threadId: "t", turnId: nil, itemId: nil, type: "commandExecution", command: "ls"))
        let refused = [
            try approval.encodedText(),  // another kind
            #"{"data":{},"kind":"event","seq":1,"threadId":"t\u0041","type":"x"}"#,  // an escape in an id
            #"{"data":{},"kind":"event","seq":1.5,"threadId":"t","type":"x"}"#,  // not an integer seq
            #"{"data":{},"kind":"event","seq":-1,"threadId":"t","type":"x"}"#,
            #"{"data":{},"data":{},"kind":"event","seq":1,"threadId":"t","type":"x"}"#,  // a duplicated member
            #"{"data":{,},"kind":"event","seq":1,"threadId":"t","type":"x"}"#,  // bad JSON inside data
            #"{"data":{},"kind":"event","seq":1,"threadId":"t","type":"x"} trailing"#,
            #"{"data":{},"kind":"event","seq":1,"threadId":"t"}"#,  // no type
            #"{"data":"\ud800","kind":"event","seq":1,"threadId":"t","type":"x"}"#,  // a lone surrogate
            String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
            #"{"data":{},"kind":"event","seq":1,"threadId":"t","type":"x""#,  // cut short
        ]
        for text in refused { #expect(RelayedFrame.scanEvent(text) == nil, "\(text.prefix(80))") }
    }
}

private struct Failure: Error {}
