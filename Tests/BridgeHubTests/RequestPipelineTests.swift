import BridgeProtocol
import BridgeStore
import Eventually
import Foundation
import Synchronization
import Testing

@testable import BridgeHub

/// The request pipeline (issue 45 item 1): scope, exactly-once and audit run before the machine step, for this
/// bridge's requests and a linked machine's alike, and a handler runs beside the hub actor.
@Suite(.timeLimit(.minutes(1))) struct RequestPipelineTests {
    /// A machine step that answers for a linked machine: `machine_unavailable` while it is away, then its answer.
    final class LinkedMachine: MachineStep {
        let away = Mutex(true)
        let sent = Mutex(0)

        func answer(
            _ request: BridgeRequest, id: String, session: ClientSession, here: @escaping @Sendable () async -> ServerMessage
        ) async -> ServerMessage? {
            if away.withLock({ $0 }) {
                return .error(ErrorMessage(id: id, code: .machineUnavailable, message: "away; nothing was sent", machine: "m2"))
            }
            sent.withLock { $0 += 1 }
            return .response(id: id, .accepted(Accepted(threadId: "linked-1")))
        }
    }

    /// A retry after the machine came back reaches it (the away answer is not kept), and once it answered, a
    /// further retry gets that answer without a second send. Before, the pipeline kept every answer but
    /// `codex_unavailable`: the retry got "away" again for an hour (seen failing: `sent` stayed 0).
    @Test func aLinkedMachinesAwayAnswerIsNotKeptButItsAnswerIs() async throws {
        let harness = try await HubHarness()
        let phone = await harness.session(deviceId: "phone")
        let machine = LinkedMachine()
        let message = BridgeRequest(.sendMessage, SendMessage(threadId: "linked-1", text: "hi"))
        let first = await harness.hub.pipeline.handle(message, id: "r1", session: phone, machines: machine)
        #expect(first.errorCode == .machineUnavailable)
        machine.away.withLock { $0 = false }
        #expect(await harness.hub.pipeline.handle(message, id: "r1", session: phone, machines: machine).kind == "accepted")
        #expect(await harness.hub.pipeline.handle(message, id: "r1", session: phone, machines: machine).kind == "accepted")
        #expect(machine.sent.withLock { $0 } == 1)
        // Each attempt is audited here, the linked machine's too.
        await harness.hub.answers.settled()
        #expect(try await harness.storage.audit.entries(limit: 10).filter { $0.kind == "sendMessage" }.count == 3)
    }

    /// The scope comes before the machine step: a linked machine never sees a request this bridge refuses.
    @Test func aRefusedRequestNeverReachesTheMachineStep() async throws {
        let harness = try await HubHarness()
        let viewer = await harness.session(deviceId: "viewer", scopes: Scopes([.observe]))
        let machine = LinkedMachine()
        machine.away.withLock { $0 = false }
        let answer = await harness.hub.pipeline.handle(
            BridgeRequest(.sendMessage, SendMessage(threadId: "linked-1", text: "hi")), id: "r1", session: viewer, machines: machine)
        #expect(answer.errorCode == BridgeErrorCode.forbidden)
        #expect(machine.sent.withLock { $0 } == 0)
    }

    /// Two overrides of one automatic review's denial at once: Codex is asked once, the second is `not_found`.
    /// The denial is taken in the step that checks it (HubPort.takeDenial); before, the check and the removal
    /// were apart across the awaits on Codex, and both overrides reached it (seen failing: 2 calls, 2 accepted).
    @Test func aDenialIsOverriddenOnceWhenTwoOverridesRace() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session()
        let calls = Mutex(0)
        let released = Gate()
        harness.codex.onAsync("thread/approveGuardianDeniedAction") { _ in
            // The first waits until the second was answered; any later one answers at once.
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            guard call == 1 else { return [:] }
            try await released.wait("the second override answered")
            return [:]
        }
        let seq = await harness.hub.lastSeq
        await harness.codex.notify("item/autoApprovalReview/completed", try AutoReviewDeskTests.params(AutoReviewDeskTests.denied))
        try await harness.processed(after: seq)
        let override = BridgeRequest(.approveDeniedAction, ApproveDeniedAction(threadId: "t1", reviewId: "r1"))
        async let first = harness.request(override, phone)
        try await harness.until("the first override reached Codex") { calls.withLock { $0 } == 1 }
        let second = await harness.request(override, phone)
        released.open()
        #expect(await first.kind == "accepted")
        #expect(second.errorCode == BridgeErrorCode.notFound)
        #expect(calls.withLock { $0 } == 1)
    }

    /// A handler that needs no hub state answers while the hub actor is busy: it runs beside it (before, every
    /// handler ran on the hub: this one waited for the hub's step to end, seen failing after the patience).
    @Test func aHandlerBesideTheHubAnswersWhileTheHubIsBusy() async throws {
        let harness = try await HubHarness()
        let phone = await harness.session()
        let answered = DispatchSemaphore(value: 0)
        // One step of the hub that lasts until the request was answered (or the patience ran out): it blocks the
        // hub's thread as a long synchronous step would.
        let holder = Task {
            await harness.hub.step { answered.wait(timeout: .now() + .seconds(30)) == .success }
        }
        try await harness.until("the hub's step began") { hubStepping.withLock { $0 } }
        let listed = await harness.request(BridgeRequest(.listDirectory, ListDirectory(path: harness.project)), phone)
        answered.signal()
        #expect(await holder.value, "answered only once the hub's step ended")
        #expect(listed.kind == "directory")
    }
}

extension ThreadHub {
    /// Runs `body` as one step of the hub (tests: the hub busy).
    fileprivate func step(_ body: @Sendable () -> Bool) -> Bool {
        hubStepping.withLock { $0 = true }
        return body()
    }
}

/// Whether the test's long hub step began.
private let hubStepping = Mutex(false)
