import BridgeProtocol
import CodexControl
import Eventually
import Foundation
import Testing

@testable import BridgeHub

/// Paged history through the hub (fake Codex): `readThread {turns}` asks `thread/turns/list` newest first and answers
/// the page oldest first with its cursor; `readTurns` passes the cursor through; Codex's refusal of a cursor is
/// `bad_request`; without `turns` nothing changes (one `thread/read` with every turn).
@Suite(.timeLimit(.minutes(1))) struct ThreadPagesTests {
    static func turn(_ id: String) -> JSONValue { ["id": .string(id), "status": "completed", "items": []] }

    @Test func aPageIsTheNewestTurnsOldestFirstWithTheCursor() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        harness.codex.on("thread/turns/list") { params in
            if params["cursor"]?.stringValue == "bad" { throw CodexError.rpc(code: -32600, message: "invalid cursor: bad") }
            let older = params["cursor"] != nil
            return [
                "data": .array(older ? [Self.turn("u1")] : [Self.turn("u3"), Self.turn("u2")]),
                "nextCursor": older ? .null : "c2",
            ]
        }
        let phone = await harness.session()
        guard
            case .response(_, .thread(let snapshot)) = await harness.request(
                BridgeRequest(.readThread, ReadThread(threadId: "t1", turns: 2)), phone)
        else {
            Issue.record("no thread")
            return
        }
        #expect(snapshot.thread["turns"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["u2", "u3"])
        #expect(snapshot.olderTurns == "c2" && snapshot.thread["cwd"]?.stringValue == harness.project)
        let asked = harness.codex.requests("thread/turns/list").first
        #expect(
            asked?["limit"]?.intValue == 2 && asked?["sortDirection"]?.stringValue == "desc" && asked?["itemsView"]?.stringValue == "full")
        #expect(harness.codex.requests("thread/read").last?["includeTurns"] == false)

        guard
            case .response(_, .turns(let page)) = await harness.request(
                BridgeRequest(.readTurns, ReadTurns(threadId: "t1", cursor: "c2")), phone)
        else {
            Issue.record("no page")
            return
        }
        #expect(page.turns.compactMap { $0["id"]?.stringValue } == ["u1"] && page.olderTurns == nil && page.threadId == "t1")
        #expect(harness.codex.requests("thread/turns/list").last?["cursor"]?.stringValue == "c2")
        #expect(harness.codex.requests("thread/turns/list").last?["limit"]?.intValue == ThreadPages.defaultTurns)

        for request in [
            BridgeRequest(.readTurns, ReadTurns(threadId: "t1", cursor: "bad")),
            BridgeRequest(.readTurns, ReadTurns(threadId: "t1", cursor: "")),
            BridgeRequest(.readTurns, ReadTurns(threadId: "t1", cursor: "c2", limit: 101)),
            BridgeRequest(.readThread, ReadThread(threadId: "t1", turns: 0)),
        ] {
            #expect(await harness.request(request, phone).errorCode == .badRequest)
        }
        // Without `turns`: Codex's thread/read with every turn, no cursor, no page asked.
        let listed = harness.codex.requests("thread/turns/list").count
        guard case .response(_, .thread(let whole)) = await harness.request(BridgeRequest(.readThread, ReadThread(threadId: "t1")), phone)
        else {
            Issue.record("no thread")
            return
        }
        #expect(whole.olderTurns == nil && harness.codex.requests("thread/read").last?["includeTurns"] == true)
        #expect(harness.codex.requests("thread/turns/list").count == listed)
    }

    /// Opening a thread asks Codex for the thread and its newest turns at once, not one after the other (P9): here
    /// thread/read answers only once thread/turns/list has been asked (in a row, it would fail after the patience).
    @Test func theThreadAndItsNewestTurnsAreAskedAtOnce() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        harness.codex.on("thread/turns/list") { _ in ["data": .array([Self.turn("u1")]), "nextCursor": .null] }
        let phone = await harness.session()
        // First read: the gate learns the thread's folder (its own thread/read), so the next read asks Codex twice only.
        _ = await harness.request(BridgeRequest(.readThread, ReadThread(threadId: "t1")), phone)
        let codex = harness.codex
        let project = harness.project
        codex.onAsync("thread/read") { params in
            guard params["threadId"]?.stringValue == "t1" else { throw CodexError.rpc(code: -32600, message: "thread not found") }
            try await eventually("thread/turns/list asked beside thread/read") { !codex.requests("thread/turns/list").isEmpty }
            return ["thread": ["id": "t1", "cwd": .string(project), "turns": []]]
        }
        guard
            case .response(_, .thread(let snapshot)) = await harness.request(
                BridgeRequest(.readThread, ReadThread(threadId: "t1", turns: 1)), phone)
        else {
            Issue.record("no thread")
            return
        }
        #expect(snapshot.thread["turns"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["u1"])
        // An unknown thread is still not_found, whatever thread/turns/list says beside it.
        harness.codex.on("thread/turns/list") { _ in throw CodexError.rpc(code: -32600, message: "no rollout") }
        #expect(await harness.request(BridgeRequest(.readThread, ReadThread(threadId: "nope", turns: 1)), phone).errorCode == .notFound)
    }

    @Test func aPageKeepsTheRequestsOfItsTurnsAndTheirAnswers() {
        let frames: [JSONValue] = [
            ["kind": "approvalRequest", "turnId": "u1", "approvalId": "a1"], ["kind": "approvalResolved", "approvalId": "a1"],
            ["kind": "inputRequest", "turnId": "u9", "requestId": "q9"], ["kind": "inputResolved", "requestId": "q9"],
        ]
        let kept = ThreadPages.requests(frames, inTurns: ["u1"])
        #expect(kept?.compactMap { $0["kind"]?.stringValue } == ["approvalRequest", "approvalResolved"])
        #expect(ThreadPages.requests(frames, inTurns: ["u5"]) == nil && ThreadPages.requests(nil, inTurns: ["u1"]) == nil)
    }
}
