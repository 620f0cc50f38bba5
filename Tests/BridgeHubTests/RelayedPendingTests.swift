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

/// Issue 44, item 2: a linked machine's open approvals and questions are bounded per machine, in entries and in
/// bytes; one past the budget is refused (the link is closed), another machine's are unaffected.
@Suite struct RelayedPendingBudgetTests {
    static func approval(_ n: Int) -> ServerMessage {
        .approvalRequest(
            ApprovalRequest(seq: Int64(n), approvalId: "a-\(n)", threadId: "t", turnId: nil, itemId: nil, type: "commandExecution"))
    }

    @Test func entriesAndBytesPerMachine() {
        var budget = LinkBudget()
        budget.openRequests = 3
        budget.openRequestBytes = 100
        var pending = RelayedPending()
        for n in 1...3 {
            #expect(pending.refusal(Self.approval(n), machine: "m", bytes: 10, budget: budget) == nil)
            _ = pending.observe(Self.approval(n), threadId: "t", machine: "m", text: String(repeating: "x", count: 10))
        }
        #expect(pending.refusal(Self.approval(4), machine: "m", bytes: 10, budget: budget)?.contains("more than 3") == true)
        #expect(pending.refusal(Self.approval(2), machine: "m", bytes: 10, budget: budget) == nil, "one open already is no new one")
        #expect(pending.refusal(Self.approval(4), machine: "other", bytes: 10, budget: budget) == nil, "another machine's own budget")
        #expect(pending.refusal(Self.approval(4), machine: "other", bytes: 101, budget: budget)?.contains("MiB") == true)
        let resolved = ServerMessage.approvalResolved(ApprovalResolved(seq: 9, approvalId: "a-1", threadId: "t", decision: .accept))
        _ = pending.observe(resolved, threadId: "t", machine: "m", text: "r")
        #expect(pending.holding("m") == (2, 20) && pending.refusal(Self.approval(4), machine: "m", bytes: 10, budget: budget) == nil)
        pending.forget(machine: "m")
        #expect(pending.holding("m") == (0, 0) && pending.frames(on: "*").isEmpty)
    }
}

/// Issue 44, item 2: a linked machine's notifications are rate-limited per machine (a token bucket).
@Suite struct RelayNoticesTests {
    @Test func aBurstThenOneEveryInterval() {
        var budget = LinkBudget()
        budget.notificationBurst = 3
        budget.notificationInterval = .seconds(10)
        var notices = RelayNotices()
        let start = ContinuousClock.now
        let burst = (0..<5).map { _ in notices.allow("m", budget: budget, now: start) }
        #expect(burst == [true, true, true, false, false])
        let other = notices.allow("other", budget: budget, now: start)
        #expect(other, "per machine")
        let later = [9, 11, 12].map { notices.allow("m", budget: budget, now: start + .seconds($0)) }
        #expect(later == [false, true, false])
        #expect(notices.refused == 4)
    }
}
