import BridgeProtocol
import BridgeStore
import Foundation
import Testing

@testable import BridgeHub

/// `POST /push/action` resolves through ``ThreadHub/answerFromNotification(approvalId:decision:owner:)``: the same
/// path as `approve` (first answer wins, everyone sees `approvalResolved` with the device, journaled).
@Suite struct NotificationAnswerTests {
    @Test func answerFromNotificationResolvesForEveryoneOnce() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let desk = await harness.session(deviceId: "dev-desk")
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), desk)
        _ = await harness.request(BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "p")), desk)
        await harness.codex.ask(
            9, "item/commandExecution/requestApproval", ["threadId": "t1", "turnId": "turn-1", "itemId": "i1", "command": "touch x"])
        let asked = try await harness.waitFor(desk) { if case .approvalRequest = $0 { true } else { false } }
        guard case .approvalRequest(let approval)? = asked.first(where: { if case .approvalRequest = $0 { true } else { false } }) else {
            Issue.record("no approval")
            return
        }
        let accepted = try await harness.hub.answerFromNotification(approvalId: approval.approvalId, decision: .accept, owner: "dev-phone")
        #expect(accepted.approvalId == approval.approvalId)
        #expect(harness.codex.responses.count == 1)
        let resolved = try await harness.waitFor(desk) { if case .approvalResolved = $0 { true } else { false } }
        let decision = resolved.compactMap { if case .approvalResolved(let r) = $0 { r } else { nil } }.first
        #expect(decision?.decision == .accept && decision?.deviceId == "dev-phone")
        // A second answer (the desk, or another notification) is refused; Codex heard one answer.
        let late = await harness.request(BridgeRequest(.approve, Approve(approvalId: approval.approvalId, decision: .decline)), desk)
        #expect(late.errorCode == .approvalNotPending)
        await #expect(throws: (any Error).self) {
            try await harness.hub.answerFromNotification(approvalId: approval.approvalId, decision: .decline, owner: "dev-phone")
        }
        #expect(harness.codex.responses.count == 1)
        // Journaled: a client resuming from before sees the resolution.
        let journaled = try await harness.storage.journal.readFrames(after: 0, limit: 100)
        #expect(journaled.contains { $0.text.contains(#""kind":"approvalResolved""#) && $0.text.contains("dev-phone") })
    }
}
