import BridgeProtocol
import Testing

@testable import BridgeFleet

@Suite struct FleetDirectoryTests {
    private func event(_ threadId: String) -> ServerMessage {
        .event(ThreadEvent(seq: 1, threadId: threadId, turnId: nil, type: "turn/started", data: [:]))
    }

    @Test func theFirstMachineToNameAThreadOwnsIt() {
        var directory = FleetDirectory()
        let observed1 = directory.observe(event("t1"), from: "b")
        #expect(observed1)
        let observed2 = directory.observe(event("t1"), from: "b")
        #expect(observed2)
        // Another linked bridge naming B's thread is not believed.
        let observed3 = directory.observe(event("t1"), from: "c")
        #expect(!observed3)
        #expect(directory.machine(ofThread: "t1") == "b")
        #expect(directory.route(BridgeRequest(.readThread, ReadThread(threadId: "t1"))) == "b")
        #expect(directory.route(BridgeRequest(.readThread, ReadThread(threadId: "home-thread"))) == nil)
    }

    @Test func approvalsAndQuestionsRouteToTheMachineThatAskedUntilResolved() {
        var directory = FleetDirectory()
        let request = ApprovalRequest(seq: 2, approvalId: "ap-1", threadId: "t1", turnId: "u1", itemId: "i1", type: "command")
        let observed4 = directory.observe(.approvalRequest(request), from: "b")
        #expect(observed4)
        #expect(directory.route(BridgeRequest(.approve, Approve(approvalId: "ap-1", decision: .accept))) == "b")
        let resolved = ApprovalResolved(seq: 3, approvalId: "ap-1", threadId: "t1", decision: .accept)
        let observed5 = directory.observe(.approvalResolved(resolved), from: "b")
        #expect(observed5)
        #expect(directory.route(BridgeRequest(.approve, Approve(approvalId: "ap-1", decision: .accept))) == nil)
    }

    @Test func startThreadAndListDirectoryNameTheirMachine() {
        let directory = FleetDirectory()
        var start = StartThread(cwd: "/w", prompt: "go")
        #expect(directory.route(BridgeRequest(.startThread, start)) == nil)
        start.machine = "b"
        #expect(directory.route(BridgeRequest(.startThread, start)) == "b")
        #expect(directory.route(BridgeRequest(.listDirectory, ListDirectory(path: "/", machine: "c"))) == "c")
    }

    @Test func anUnlinkedMachineIsForgottenAndCapacityIsBounded() {
        var directory = FleetDirectory(capacity: 2)
        directory.claim(thread: "t1", by: "b")
        directory.claim(thread: "t2", by: "b")
        directory.claim(thread: "t3", by: "c")
        #expect(directory.machine(ofThread: "t1") == nil)  // the oldest went
        #expect(directory.machine(ofThread: "t3") == "c")
        directory.forget(machine: "c")
        #expect(directory.machine(ofThread: "t3") == nil)
        #expect(directory.machine(ofThread: "t2") == "b")
    }
}

/// Issue 44, item 2: one machine names at most its share of threads; past it, it is over its budget, and the
/// others are unaffected.
@Suite struct FleetDirectoryBudgetTests {
    @Test func threadsPerMachine() {
        var directory = FleetDirectory(capacity: 100, threadsPerMachine: 2)
        // Mutating calls outside the macros: #expect takes its subject as an immutable value.
        let claimed = [directory.claim(thread: "t1", by: "m"), directory.claim(thread: "t2", by: "m")]
        #expect(claimed == [true, true] && directory.isOverBudget("m", naming: "t3", limit: 2))
        let third = directory.claim(thread: "t3", by: "m")
        #expect(!third && !directory.isOverBudget("m", naming: "t1", limit: 2), "a thread it owns is no new one")
        let others = directory.claim(thread: "t3", by: "other")
        directory.forget(machine: "m")
        let again = directory.claim(thread: "t4", by: "m")
        #expect(others && again)
    }
}
