import BridgeProtocol
import CodexControl
import Foundation
import Testing

@testable import BridgeHub

/// "Write with Codex" in-process (fake Codex, real git): an ephemeral, read-only Codex thread of the bridge's own
/// gets the diff; its answer comes back cleaned; nothing of that thread reaches a client or the journal. Cost: a few
/// git processes.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubCommitMessageTests {
    @Test func codexWritesTheMessageInAHiddenEphemeralThread() async throws {
        let harness = try await HubHarness()
        let fixture = try GitFixture(base: harness.root + "/git")
        harness.codexKnowsThread("t1", cwd: fixture.repository)
        let codex = harness.codex
        codex.onAsync("thread/start") { params in
            // Codex announces the thread before it answers.
            await codex.notify("thread/started", ["thread": ["id": "helper", "cwd": params["cwd"] ?? JSONValue.null, "ephemeral": true]])
            return ["thread": ["id": "helper"]]
        }
        codex.on("thread/unsubscribe") { _ in [:] }
        codex.onAsync("turn/start") { _ in
            Task {
                for (method, params) in [
                    ("turn/started", ["threadId": "helper", "turn": ["id": "h-turn"]] as JSONValue),
                    ("item/agentMessage/delta", ["threadId": "helper", "turnId": "h-turn", "itemId": "m", "delta": "Use"]),
                    (
                        "item/completed",
                        [
                            "threadId": "helper", "turnId": "h-turn",
                            "item": [
                                "type": "agentMessage", "id": "m", "text": "```\nUse UTC in the parser\u{1B}[31m\n\nDates were local.\n```",
                            ],
                        ]
                    ),
                    ("turn/completed", ["threadId": "helper", "turn": ["id": "h-turn", "status": "completed"]]),
                ] as [(String, JSONValue)] {
                    await codex.notify(method, params)
                }
            }
            return ["turn": ["id": "h-turn"]]
        }
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        // Nothing changed yet.
        #expect(await harness.request(BridgeRequest(.gitCommitMessage, ThreadRef(threadId: "t1")), phone).errorCode == .badRequest)
        try fixture.write("tracked.txt", "parsed in UTC\n")
        let answer = await harness.request(BridgeRequest(.gitCommitMessage, ThreadRef(threadId: "t1")), phone)
        #expect(
            answer
                == .response(
                    id: answer.answerId ?? "",
                    .commitMessage(CommitMessage(threadId: "t1", message: "Use UTC in the parser[31m\n\nDates were local."))))
        let start = try #require(codex.requests("thread/start").first)
        #expect(start["ephemeral"] == true && start["sandbox"] == "read-only" && start["approvalPolicy"] == "never")
        let turn = try #require(codex.requests("turn/start").first)
        #expect(turn["threadId"] == "helper" && turn["sandboxPolicy"] == ["type": "readOnly"] && turn["approvalPolicy"] == "never")
        #expect(turn["input"]?.arrayValue?.first?["text"]?.stringValue?.contains("+parsed in UTC") == true)
        try await harness.until("the helper thread unsubscribed") { !codex.requests("thread/unsubscribe").isEmpty }
        #expect(codex.requests("thread/unsubscribe").first?["threadId"] == "helper")
        // Nothing of the helper reached the phone, or the journal.
        let later = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*", afterSeq: 0)), later)
        for frames in [harness.frames(phone), harness.frames(later)] {
            #expect(!frames.contains { "\($0)".contains("helper") })
        }
    }
}
