import BridgeProtocol
import CodexControl
import Eventually
import Foundation
import Synchronization
import Testing

@testable import BridgeHub

/// The races the last kinds' move beside the hub could open (issue 45 item 1), each driven: the handler awaits
/// between the hub's steps now, so each check and its act must be one step of the port.
@Suite(.timeLimit(.minutes(1))) struct PortStepRaceTests {
    /// Codex restarts while a thread's resume is under way: the resume went to the child that stopped, so the
    /// thread is not loaded in the new one and its next use resumes it again. Before, `ensureLoaded` read the
    /// generation after its await and counted the thread loaded in the new child (seen failing with that step
    /// restored: one `thread/resume`, the next message went to a child that never loaded the thread).
    @Test func aResumeOvertakenByACodexRestartIsNotCountedAsLoaded() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        harness.codex.on("turn/steer") { _ in ["turnId": "turn-1"] }
        let gate = Gate()
        let resumes = Counter()
        harness.codex.onAsync("thread/resume") { _ in
            if resumes.next() == 1 { try await gate.wait("the test lets Codex answer") }
            return ["cwd": .string(harness.project), "thread": ["id": "t1"]]
        }
        let phone = await harness.session()
        async let first = harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "one")), phone)
        try await harness.until("the resume reached Codex") { harness.codex.requests("thread/resume").count == 1 }
        await harness.codex.events.send(.stopped(generation: 1, reason: "test"))
        await harness.codex.events.send(.started(generation: 2))
        try await harness.until("the hub saw Codex back") { await harness.hub.generation == 2 }
        gate.open()
        #expect(await first.errorCode == nil)
        #expect(await harness.hub.generationToLoad("t1") == 2)
        let second = await harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "two")), phone)
        #expect(second.errorCode == nil)
        #expect(harness.codex.requests("thread/resume").count == 2)
        #expect(await harness.hub.generationToLoad("t1") == nil)
    }

    /// `editQueued`, `cancelQueued` and `reorderQueued` while the queue drains the message into a turn (its
    /// `turn/start` waits on Codex): the message is gone from the line, so each is refused, and the turn starts
    /// with the text it had; a message still waiting behind it is edited.
    @Test func theQueuesEditsWhileItDrainsIntoATurn() async throws {
        let harness = try await HubHarness()
        let (phone, laptop) = try await ThreadHubQueueTests().running(harness)
        var queued: [String] = []
        for text in ["first", "second"] {
            let answer = await harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: text, mode: .queue)), phone)
            guard case .response(_, .accepted(let accepted)) = answer, let queuedId = accepted.queuedId else {
                Issue.record("\(answer)")
                return
            }
            queued.append(queuedId)
        }
        let gate = Gate()
        harness.codex.onAsync("turn/start") { _ in
            try await gate.wait("the test lets Codex answer")
            return ["turn": ["id": "turn-2"]]
        }
        await harness.codex.notify("turn/completed", ["threadId": "t1", "turn": ["id": "turn-1", "status": "completed"]])
        try await harness.until("the first message's turn/start reached Codex") { harness.codex.requests("turn/start").count == 2 }

        let edit = await harness.request(
            BridgeRequest(.editQueued, EditQueued(threadId: "t1", queuedId: queued[0], text: "changed")), phone)
        #expect(edit.errorCode == .notFound)
        let cancel = await harness.request(BridgeRequest(.cancelQueued, CancelQueued(threadId: "t1", queuedId: queued[0])), phone)
        #expect(cancel.errorCode == .notFound)
        let reorder = await harness.request(
            BridgeRequest(.reorderQueued, ReorderQueued(threadId: "t1", ids: [queued[1], queued[0]])), phone)
        #expect(reorder.errorCode == .conflict)
        let behind = await harness.request(
            BridgeRequest(.editQueued, EditQueued(threadId: "t1", queuedId: queued[1], text: "second, edited")), phone)
        #expect(behind.errorCode == nil)
        #expect(await harness.hub.desks.queue.entries(of: "t1").map(\.announcement.queuedId) == [queued[1]])

        gate.open()
        let frames = try await harness.waitFor(laptop) {
            if case .messageUnqueued(let u) = $0 { u.queuedId == queued[0] } else { false }
        }
        #expect(
            frames.contains {
                if case .messageUnqueued(let u) = $0 { u.reason == .started && u.turnId == "turn-2" } else { false }
            })
        #expect(harness.codex.requests("turn/start").last?["input"]?.arrayValue?.first?["text"]?.stringValue == "first")
        // The line as announced never showed the started message edited.
        for case .queueChanged(let changed) in frames {
            #expect(!changed.items.contains { $0.queuedId == queued[0] && $0.text == "changed" })
        }
        await harness.codex.notify("turn/completed", ["threadId": "t1", "turn": ["id": "turn-2", "status": "completed"]])
        try await harness.until("the second message's turn started") { harness.codex.requests("turn/start").count == 3 }
        #expect(harness.codex.requests("turn/start").last?["input"]?.arrayValue?.first?["text"]?.stringValue == "second, edited")
    }

    /// Subscriptions that arrive together at a session's limit: the count is checked in the step that subscribes,
    /// so exactly one gets the last place. (A guard: with the check in a step of its own it still passed in three
    /// runs here; the interleaving it needs, another check between one's check and its subscribe, is rare.)
    @Test func subscriptionsAtTheLimitTakeItsLastPlaceOnce() async throws {
        let harness = try await HubHarness()
        // The gate's reads wait for one another: the subscriptions reach the hub's steps together.
        let arrived = Counter()
        let together = Gate()
        harness.codex.onAsync("thread/read") { params in
            if arrived.next() == 8 { together.open() }
            try await together.wait("the eight reads")
            return ["thread": ["id": params["threadId"] ?? "", "cwd": .string(harness.project), "turns": []]]
        }
        let phone = await harness.session()
        for index in 0..<(RequestLimits.maxSubscriptionsPerSession - 1) { await harness.hub.subscribe(phone, to: "held-\(index)") }
        let answers = await withTaskGroup(of: ServerMessage.self) { group in
            for index in 0..<8 {
                group.addTask { await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "new-\(index)")), phone) }
            }
            return await group.reduce(into: [ServerMessage]()) { $0.append($1) }
        }
        #expect(answers.filter { $0.kind == "subscribed" }.count == 1)
        #expect(answers.filter { $0.errorCode == .badRequest }.count == 7)
    }

    /// A subscription that resumes from a cursor while the thread's events keep coming: its replay runs beside
    /// the hub now, between the step that captured the seam and the step that ends the hold, and the session
    /// still gets every event of the thread once, in order (seen failing without the hold: live events arrived
    /// before the replayed ones).
    @Test func aResumingSubscriptionSeesEveryEventOnceWhileEventsKeepComing() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session()
        let start = await harness.hub.lastSeq
        func burst(_ range: Range<Int>) async {
            for index in range {
                await harness.codex.notify(
                    "item/completed", ["threadId": "t1", "turnId": "turn-1", "item": ["id": .string("i\(index)"), "type": "reasoning"]])
            }
        }
        await burst(0..<1500)
        try await harness.processed(after: start + 1499)
        async let more: Void = burst(1500..<2000)
        let answer = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1", afterSeq: start)), phone)
        guard case .response(_, .subscribed(let subscribed)) = answer else {
            Issue.record("\(answer)")
            return
        }
        #expect(subscribed.resume == .ok)
        await more
        try await harness.processed(after: start + 1999)
        var seqs: [Int64] = []
        try? await harness.until("2000 events at the phone") {
            seqs += harness.frames(phone).compactMap { $0.event?.threadId == "t1" ? $0.event?.seq : nil }
            return seqs.count >= 2000
        }
        #expect(seqs == Array((start + 1)...(start + 2000)))
    }

    /// `runCommand` while the thread's lane is held by a message whose turn waits on Codex: the command takes no
    /// lane and answers at once, and its start is journaled before the output of its run.
    @Test func aCommandRunsWhileATurnStartsAndItsStartPrecedesItsOutput() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let gate = Gate()
        harness.codex.onAsync("turn/start") { _ in
            try await gate.wait("the test lets Codex answer")
            return ["turn": ["id": "turn-1"]]
        }
        // Codex answers at once with what it buffered: the run's output comes without any event for the hub to read.
        harness.codex.on("command/exec") { _ in ["exitCode": 0, "stdout": "hi\n", "stderr": ""] }
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), phone)
        async let message = harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "go")), phone)
        try await harness.until("the turn's start reached Codex") { harness.codex.requests("turn/start").count == 1 }
        let run = await harness.request(BridgeRequest(.runCommand, RunCommand(threadId: "t1", command: "echo hi")), phone)
        #expect(run.kind == "accepted")
        let frames = try await harness.waitFor(phone) { if case .commandExited = $0 { true } else { false } }
        let order = frames.compactMap { frame -> String? in
            switch frame {
            case .commandStarted: "started"
            case .commandOutput: "output"
            case .commandExited: "exited"
            default: nil
            }
        }
        #expect(order == ["started", "output", "exited"])
        gate.open()
        #expect(await message.errorCode == nil)
    }

    /// An answer whose gate waits on Codex (a thread this bridge had not read yet) while Codex withdraws the
    /// question: the step that answers finds it gone, so Codex gets no answer and everyone saw one `cancel`.
    @Test func anAnswerToAQuestionWithdrawnMeanwhileIsRefused() async throws {
        let harness = try await HubHarness()
        let gate = Gate()
        harness.codex.onAsync("thread/read") { _ in
            try await gate.wait("the test lets Codex answer")
            return ["thread": ["id": "cli-1", "cwd": .string(harness.project), "turns": []]]
        }
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), phone)
        guard case .object(var question) = ThreadHubInputTests.userInput else { return }
        question["threadId"] = "cli-1"
        await harness.codex.ask(11, "item/tool/requestUserInput", .object(question))
        let asked = try await ThreadHubInputTests().asked(harness, phone)
        async let answer = harness.request(
            BridgeRequest(.answerInput, AnswerInput(requestId: asked.requestId, answers: ["color": ["Blue"]])), phone)
        try await harness.until("the gate's read reached Codex") { harness.codex.requests("thread/read").count == 1 }
        await harness.codex.notify("serverRequest/resolved", ["threadId": "cli-1", "requestId": 11])
        let withdrawn = try await harness.waitFor(phone) { if case .inputResolved = $0 { true } else { false } }
        gate.open()
        #expect(await answer.errorCode == .inputNotPending)
        #expect(harness.codex.responses.isEmpty)
        let resolved = withdrawn.compactMap { if case .inputResolved(let r) = $0 { r } else { nil } }
        #expect(resolved.map(\.action) == [.cancel])
        try await harness.processed(after: await harness.hub.lastSeq - 1)
        #expect(!harness.frames(phone).contains { if case .inputResolved = $0 { true } else { false } })
    }

    /// What the gate's facts read beside the hub (a thread's cwd from Codex, its policy from the store) is kept by
    /// the step after only where the hub learnt nothing meanwhile: a message that kept a policy, or a resume that
    /// set the cwd, while the store or Codex was read is not overwritten by the older read. (Before, the policy
    /// was checked before the store's read and set after it, whatever happened between.)
    @Test func whatWasReadBesideTheHubDoesNotOverwriteWhatTheHubLearntMeanwhile() async throws {
        let harness = try await HubHarness()
        let hub = harness.hub
        try await harness.until("the hub saw Codex start") { await hub.generation == 1 }
        let known = await hub.knownFacts(of: "t1")
        #expect(known.cwd == nil && known.remembered == nil)
        let fresh = TurnPolicy(sandbox: "read-only", approvalPolicy: "never")
        let stale = TurnPolicy(sandbox: "workspace-write", approvalPolicy: "on-request")
        // Meanwhile: a resume and a message's policy.
        await hub.resumed("t1", cwd: harness.project, in: 1, policy: fresh)
        let facts = await hub.learnFacts(of: "t1", cwd: .some(harness.outside), storedPolicy: stale)
        #expect(facts.cwd == harness.project && facts.remembered == fresh)
        #expect(await hub.generationToLoad("t1") == nil)
        // A read of a thread the hub knows nothing of is kept.
        let other = await hub.learnFacts(of: "t2", cwd: .some(harness.project), storedPolicy: stale)
        #expect(other.cwd == harness.project && other.remembered == stale)
        #expect(await hub.generationToLoad("t2") == 1)
    }
}
