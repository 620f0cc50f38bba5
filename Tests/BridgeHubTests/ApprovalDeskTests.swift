import BridgeProtocol
import CodexControl
import Foundation
import Testing

@testable import BridgeHub

/// Every approval kind Codex sends, answered through every path a person can answer from, reaches Codex as the
/// exact JSON that kind expects (issue 23: the desk is the one path). Seen failing before the desk: an answer from
/// a notification sent a bare `{"decision": …}` for every kind, which permission and legacy approvals reject.
@Suite struct ApprovalDeskTests {
    @Test func aNotificationTargetIsNoDevice() {
        #expect(ApprovalAnswerer.notification(owner: "dev-1").deviceId == "dev-1")
        #expect(ApprovalAnswerer.notification(owner: "notify:ntfy-1").deviceId == nil)
        #expect(ApprovalAnswerer.device(nil).deviceId == nil && ApprovalAnswerer.device("dev-2").deviceId == "dev-2")
    }

    /// (Codex's method, its params, the result Codex expects for accept, for acceptForSession, for decline).
    static let kinds: [(method: String, params: JSONValue, accept: JSONValue, session: JSONValue, decline: JSONValue)] = [
        (
            "item/commandExecution/requestApproval", ["threadId": "t1", "turnId": "turn-1", "itemId": "i1", "command": "touch x"],
            ["decision": "accept"], ["decision": "acceptForSession"], ["decision": "decline"]
        ),
        (
            "item/fileChange/requestApproval", ["threadId": "t1", "turnId": "turn-1", "itemId": "i2"],
            ["decision": "accept"], ["decision": "acceptForSession"], ["decision": "decline"]
        ),
        (
            "item/permissions/requestApproval",
            ["threadId": "t1", "turnId": "turn-1", "itemId": "i3", "permissions": ["network": ["enabled": true]]],
            ["permissions": ["network": ["enabled": true]], "scope": "turn"],
            ["permissions": ["network": ["enabled": true]], "scope": "session"],
            ["permissions": [:], "scope": "turn"]
        ),
        (
            "execCommandApproval", ["conversationId": "t1", "callId": "c1", "command": ["touch", "y"], "cwd": "/"],
            ["decision": "approved"], ["decision": "approved_for_session"], ["decision": "denied"]
        ),
        (
            "applyPatchApproval", ["conversationId": "t1", "callId": "c2", "fileChanges": [:]],
            ["decision": "approved"], ["decision": "approved_for_session"], ["decision": "denied"]
        ),
    ]

    enum Path: CaseIterable { case phone, notification, ntfy }

    @Test(arguments: Path.allCases)
    func everyKindThroughEveryPathSendsCodexWhatItExpects(_ path: Path) async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session(deviceId: "dev-phone")
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        _ = await harness.request(BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "p")), phone)
        var codexId = 100
        for kind in Self.kinds {
            for (decision, expected) in [
                (ApprovalDecision.accept, kind.accept), (.acceptForSession, kind.session), (.decline, kind.decline),
            ] {
                codexId += 1
                await harness.codex.ask(codexId, kind.method, kind.params)
                let asked = try await harness.waitFor(phone) {
                    if case .approvalRequest(let request) = $0, request.itemId ?? "" == kind.params["itemId"]?.stringValue ?? "" {
                        true
                    } else {
                        false
                    }
                }
                let approval = try #require(
                    asked.compactMap { if case .approvalRequest(let request) = $0 { request } else { nil } }.last)
                switch path {
                case .phone:
                    let answer = await harness.request(
                        BridgeRequest(.approve, Approve(approvalId: approval.approvalId, decision: decision)), phone)
                    #expect(answer.errorCode == nil, "\(kind.method) \(decision)")
                case .notification:
                    _ = try await harness.hub.answerFromNotification(
                        approvalId: approval.approvalId, decision: decision, owner: "dev-phone")
                case .ntfy:
                    _ = try await harness.hub.answerFromNotification(
                        approvalId: approval.approvalId, decision: decision, owner: "notify:ntfy.sh")
                }
                let sent = try #require(harness.codex.responses.last)
                #expect(sent.id == CodexRequestID(generation: 1, value: .number(Double(codexId))), "\(kind.method)")
                #expect(sent.result == expected, "\(path) \(kind.method) \(decision): \(String(describing: sent.result))")
                // First answer wins: a second one, from any path, reaches nobody.
                let late = await harness.request(
                    BridgeRequest(.approve, Approve(approvalId: approval.approvalId, decision: .decline)), phone)
                #expect(late.errorCode == .approvalNotPending)
                await #expect(throws: (any Error).self) {
                    try await harness.hub.answerFromNotification(approvalId: approval.approvalId, decision: .accept, owner: "dev-phone")
                }
            }
        }
        #expect(harness.codex.responses.count == Self.kinds.count * 3)
    }

    @Test func theDeskAloneAnswersOnceAndCancelsPerGeneration() throws {
        var desk = ApprovalDesk()
        let first = desk.nextId(generation: 1)
        let second = desk.nextId(generation: 2)
        #expect(first != second && first.hasPrefix("ap-1-") && second.hasPrefix("ap-2-"))
        let request = { (id: String, seq: Int64) in
            ApprovalRequest(
                seq: seq, approvalId: id, threadId: "t1", turnId: nil, itemId: nil, type: "command", command: nil, cwd: nil, reason: nil,
                changes: nil)
        }
        desk.requested(request(first, 1), codexId: CodexRequestID(generation: 1, value: 7), method: "execCommandApproval", params: [:])
        desk.requested(
            request(second, 2), codexId: CodexRequestID(generation: 2, value: 8), method: "item/fileChange/requestApproval", params: [:])
        #expect(desk.inOrder.map(\.approvalId) == [first, second])
        #expect(try desk.pendingThread(of: second) == "t1")
        #expect(desk.cancelAll(generation: 1).map(\.approvalId) == [first])
        #expect(throws: HubError.self) { try desk.answer(first, decision: .accept) }
        let answer = try desk.answer(second, decision: .acceptForSession)
        #expect(answer.result == ["decision": "acceptForSession"] && answer.threadId == "t1")
        #expect(throws: HubError.self) { try desk.answer(second, decision: .accept) }
        #expect(throws: HubError.self) { try desk.pendingThread(of: second) }
        #expect(ApprovalDesk.notPending(second).code == .approvalNotPending)
        #expect(desk.count == 0)
    }
}
