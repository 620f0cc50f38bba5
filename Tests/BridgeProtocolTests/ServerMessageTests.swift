import BridgeProtocol
import Foundation
import Testing

@Suite struct ServerMessageTests {
    private func json(_ message: ServerMessage) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: message.encoded()) as? [String: Any])
    }

    @Test func helloAckHasTheExactSeedShape() throws {
        let data = try ServerMessage.helloAck(HelloAck(version: 1, ok: true)).encoded()
        #expect(String(decoding: data, as: UTF8.self) == #"{"kind":"helloAck","ok":true,"version":1}"#)
        let failed = try json(.helloAck(HelloAck(version: 1, ok: false, error: WireError(code: .unauthorized, message: "no"))))
        #expect((failed["error"] as? [String: Any])?["code"] as? String == "unauthorized")
    }

    @Test func answersCarryTheirId() throws {
        let answer = try json(.response(id: "r1", .threadStarted(ThreadStarted(threadId: "t", turnId: "u", cwd: "/w"))))
        #expect(answer["kind"] as? String == "threadStarted")
        #expect(answer["id"] as? String == "r1")
        #expect(answer["threadId"] as? String == "t")
        let error = try json(.error(ErrorMessage(id: "r2", code: .notFound, message: "no such thread")))
        #expect(error["kind"] as? String == "error" && error["code"] as? String == "not_found" && error["id"] as? String == "r2")
    }

    @Test func eventsKeepCodexPayloadsUnchanged() throws {
        let data: JSONValue = ["delta": "Hel", "itemId": "i1", "n": 3, "ok": true, "list": [1, nil, "x"], "f": .number(0.5)]
        let event = ServerMessage.event(ThreadEvent(seq: 7, threadId: "t", turnId: "u", type: "item/agentMessage/delta", data: data))
        let decoded = try ServerMessage.decode(event.encoded())
        #expect(decoded == event)
        #expect(decoded.seq == 7)
    }

    @Test func roundTripsEveryServerMessage() throws {
        let messages: [ServerMessage] = [
            .pong(Pong(nonce: "n")),
            .response(
                id: "1",
                .threads(
                    ThreadList(
                        threads: [ThreadSummary(threadId: "t", cwd: "/", preview: "p", status: "idle", updatedAt: 1)], nextCursor: "c"))),
            .response(id: "2", .accepted(Accepted(threadId: "t", turnId: "u"))),
            .response(id: "3", .subscribed(SubscriptionChanged(threadId: "*", resume: .gap, lastSeq: 4))),
            .response(id: "4", .unsubscribed(SubscriptionChanged(threadId: "t"))),
            .response(id: "5", .thread(ThreadSnapshot(thread: ["id": "t", "turns": []]))),
            .response(id: "6", .diff(ThreadDiff(threadId: "t", diff: "--- a\n+++ b\n"))),
            .approvalRequest(
                ApprovalRequest(
                    seq: 1, approvalId: "a", threadId: "t", turnId: "u", itemId: "i", type: "command", command: "touch x", cwd: "/w",
                    reason: "r")),
            .approvalResolved(ApprovalResolved(seq: 2, approvalId: "a", threadId: "t", decision: .accept, deviceId: "d")),
            .inputRequest(
                InputRequest(
                    seq: 3, requestId: "in-1", threadId: "t", turnId: "u", itemId: "i", type: "userInput",
                    questions: [["id": "q", "header": "H", "question": "Q?", "options": [["label": "A", "description": "d"]]]])),
            .inputRequest(
                InputRequest(
                    seq: 4, requestId: "in-2", threadId: "t", type: "elicitation", message: "m",
                    schema: ["type": "object", "properties": [:]],
                    serverName: "s")),
            .inputResolved(InputResolved(seq: 5, requestId: "in-1", threadId: "t", action: .decline, deviceId: "d")),
            .messageQueued(MessageQueued(seq: 6, threadId: "t", queuedId: "q-1", text: "x", attachments: ["up-1"])),
            .messageUnqueued(MessageUnqueued(seq: 7, threadId: "t", queuedId: "q-1", reason: .started, turnId: "u2")),
            .queueChanged(
                QueueChanged(
                    seq: 8, threadId: "t",
                    items: [
                        QueuedItem(
                            MessageQueued(seq: 6, threadId: "t", queuedId: "q-1", text: "x", collaborationMode: .plan, deviceId: "d"))
                    ])),
            .response(id: "7", .accepted(Accepted(threadId: "t", requestId: "in-1", queuedId: "q-1"))),
            .response(
                id: "8", .files(FileMatches(threadId: "t", query: "d", files: [FileMatch(path: "a/d.py", score: 9, matchType: "file")]))),
            .response(id: "9", .threadForked(ThreadForked(threadId: "f", forkedFrom: "t", cwd: "/src"))),
            .response(id: "10", .skills(SkillList(threadId: "t", skills: [.init(name: "deploy", description: "Ship it")]))),
        ]
        for message in messages {
            #expect(try ServerMessage.decode(message.encoded()) == message)
        }
    }
}

@Suite struct JSONValueFastPathTests {
    @Test(arguments: [
        #"{"a":[1,2.5,-3e2,true,false,null],"b":{"c":"x\"y\\z\n\u0001é€😀"},"d":"","e":{}}"#,
        #"[]"#, #""plain""#, #"0"#, #"-0.125"#, #"{"nested":[[[{"k":"v"}]]]}"#, #"1e+20"#,
    ])
    func parsesLikeJSONDecoderAndWritesLikeJSONEncoder(json: String) throws {
        let data = Data(json.utf8)
        let fast = try JSONValue(parsing: data)
        let slow = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(fast == slow)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(fast.jsonText == String(decoding: try encoder.encode(fast), as: UTF8.self))
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\\x\"", "\"\u{01}\"", "\"\\ud800\"", "tru", "{} x", "-"])
    func rejectsInvalidJSON(json: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Data(json.utf8)) }
    }

    @Test func rejectsDeepNesting() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: Data(deep.utf8)) }
    }

    @Test func eventFastPathMatchesTheEncoder() throws {
        let events: [ServerMessage] = [
            .event(
                ThreadEvent(
                    seq: 42, threadId: "t\"1", turnId: "u", type: "item/agentMessage/delta", data: ["delta": "a\nb", "n": .number(1.5)])),
            .event(ThreadEvent(seq: 1, threadId: "t", turnId: nil, type: "thread/started", data: ["thread": ["id": "t"]])),
        ]
        for event in events {
            #expect(try event.encodedText() == String(decoding: try event.encoded(), as: UTF8.self))
        }
    }
}
