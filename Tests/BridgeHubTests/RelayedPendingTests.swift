import BridgeProtocol
import Testing

@testable import BridgeHub

/// A linked machine's open approvals and questions as relayed messages open and close them, without a hub.
@Suite struct RelayedPendingTests {
    @Test func aQuestionOpensAndItsResolutionClosesAndOnlyApprovalsNotify() {
        var pending = RelayedPending()
        let asked = ServerMessage.inputRequest(InputRequest(seq: 5, requestId: "in-1", threadId: "t", type: "userInput"))
        // Mutating calls outside the macros: #expect takes its subject as an immutable value.
        let askedSignal = pending.observe(asked, threadId: "t", machine: "m", text: "frame-5")
        #expect(askedSignal == nil)
        #expect(pending.frames(on: "t") == ["frame-5"] && pending.frames(on: "*") == ["frame-5"] && pending.frames(on: "u").isEmpty)
        let resolved = ServerMessage.inputResolved(InputResolved(seq: 6, requestId: "in-1", threadId: "t", action: .accept, at: 0))
        let resolvedSignal = pending.observe(resolved, threadId: "t", machine: "m", text: "frame-6")
        #expect(resolvedSignal == nil)
        #expect(pending.frames(on: "t").isEmpty)
        let approved = ServerMessage.approvalResolved(ApprovalResolved(seq: 7, approvalId: "a-1", threadId: "t", decision: .accept))
        guard case .approvalResolved(let id, .accept, nil) = pending.observe(approved, threadId: "t", machine: "m", text: "frame-7") else {
            Issue.record("an approval's resolution notifies")
            return
        }
        #expect(id == "a-1")
    }
}
