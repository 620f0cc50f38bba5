import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Synchronization
import Testing

@testable import BridgeHub

/// Queue mode end to end in the hub: held while a turn runs, announced to everyone, started when it ends,
/// cancellable, kept across a restart of the bridge.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubQueueTests {
    func running(_ harness: HubHarness) async throws -> (ClientSession, ClientSession) {
        harness.codexKnowsThread("t1", cwd: harness.project)
        harness.codex.on("turn/steer") { _ in ["turnId": "turn-1"] }
        let phone = await harness.session(deviceId: "dev-a")
        let laptop = await harness.session(deviceId: "dev-b")
        for session in [phone, laptop] { _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "*")), session) }
        _ = await harness.request(BridgeRequest(.startThread, StartThread(cwd: harness.project, prompt: "p")), phone)
        await harness.codex.notify("turn/started", ["threadId": "t1", "turn": ["id": "turn-1"]])
        _ = try await harness.waitFor(laptop) { $0.event?.type == "turn/started" }
        _ = harness.frames(phone)
        return (phone, laptop)
    }

    @Test func aQueuedMessageStartsTheNextTurn() async throws {
        let harness = try await HubHarness()
        let (phone, laptop) = try await running(harness)
        let answer = await harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "then this", mode: .queue)), phone)
        guard case .response(_, .accepted(let accepted)) = answer, let queuedId = accepted.queuedId else {
            Issue.record("\(answer)")
            return
        }
        #expect(accepted.turnId == nil)
        #expect(harness.codex.requests("turn/steer").isEmpty && harness.codex.requests("turn/start").count == 1)
        let seen = try await harness.waitFor(laptop) { if case .messageQueued = $0 { true } else { false } }
        #expect(
            seen.contains {
                if case .messageQueued(let q) = $0 {
                    q.queuedId == queuedId && q.text == "then this" && q.deviceId == "dev-a"
                } else {
                    false
                }
            })
        // A client that subscribes now sees it too.
        let late = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), late)
        _ = try await harness.waitFor(late) { if case .messageQueued = $0 { true } else { false } }

        harness.codex.on("turn/start") { _ in ["turn": ["id": "turn-2"]] }
        await harness.codex.notify("turn/completed", ["threadId": "t1", "turn": ["id": "turn-1", "status": "completed"]])
        let frames = try await harness.waitFor(laptop) { if case .messageUnqueued = $0 { true } else { false } }
        #expect(frames.contains { if case .messageUnqueued(let u) = $0 { u.reason == .started && u.turnId == "turn-2" } else { false } })
        #expect(harness.codex.requests("turn/start").last?["input"]?.arrayValue?.first?["text"]?.stringValue == "then this")
        // Steer (the default) is today's behaviour.
        await harness.codex.notify("turn/started", ["threadId": "t1", "turn": ["id": "turn-2"]])
        _ = try await harness.waitFor(laptop) { $0.event?.type == "turn/started" }
        #expect(await harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "now")), phone).errorCode == nil)
        #expect(harness.codex.requests("turn/steer").count == 1)
    }

    @Test func cancelledMessagesNeverStart() async throws {
        let harness = try await HubHarness()
        let (phone, laptop) = try await running(harness)
        guard
            case .response(_, .accepted(let accepted)) = await harness.request(
                BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "maybe", mode: .queue)), phone),
            let queuedId = accepted.queuedId
        else { return }
        #expect(
            await harness.request(BridgeRequest(.cancelQueued, CancelQueued(threadId: "t1", queuedId: queuedId)), laptop).errorCode == nil)
        let frames = try await harness.waitFor(phone) { if case .messageUnqueued = $0 { true } else { false } }
        #expect(frames.contains { if case .messageUnqueued(let u) = $0 { u.reason == .cancelled } else { false } })
        #expect(
            await harness.request(BridgeRequest(.cancelQueued, CancelQueued(threadId: "t1", queuedId: queuedId)), laptop).errorCode
                == .notFound)
        let before = try harness.storage.journal.lastSeq()
        await harness.codex.notify("turn/completed", ["threadId": "t1", "turn": ["id": "turn-1", "status": "completed"]])
        try await harness.processed(after: before)
        #expect(harness.codex.requests("turn/start").count == 1)
        // With no turn running, queue mode just starts the turn.
        guard
            case .response(_, .accepted(let direct)) = await harness.request(
                BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "go", mode: .queue)), phone)
        else { return }
        #expect(direct.queuedId == nil && direct.turnId == "turn-1" && harness.codex.requests("turn/start").count == 2)
    }

    /// Seen failing before the queue was kept on disk: the restart reported the message `failed`.
    @Test func aRestartKeepsHeldMessagesAnnouncesThemAndStartsTheOldest() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        var queuedId = ""
        do {
            let harness = try await HubHarness(directory: directory)
            let (phone, _) = try await running(harness)
            guard
                case .response(_, .accepted(let accepted)) = await harness.request(
                    BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "later", mode: .queue)), phone)
            else { return }
            queuedId = accepted.queuedId ?? ""
        }
        let restarted = try await HubHarness(directory: directory)
        restarted.codexKnowsThread("t1", cwd: restarted.project)
        let phone = await restarted.session()
        _ = await restarted.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1", afterSeq: 0)), phone)
        // Announced again after the restart (after the interrupted turn's end), then started as the next turn as
        // soon as Codex runs (the harness's Codex is running).
        let frames = try await restarted.waitFor(phone) {
            if case .messageUnqueued(let u) = $0, u.queuedId == queuedId { true } else { false }
        }
        let announced = frames.compactMap { if case .messageQueued(let q) = $0, q.queuedId == queuedId { q.seq } else { nil } }
        let unqueued = frames.compactMap { if case .messageUnqueued(let u) = $0, u.queuedId == queuedId { u } else { nil } }
        #expect(announced.count == 2, "announced before the restart and again after it")
        #expect(unqueued.count == 1 && unqueued.first?.reason == .started && unqueued.first!.seq > announced.max()!)
        let input = restarted.codex.requests("turn/start").last?["input"]
        #expect(input?.arrayValue?.first?["text"]?.stringValue == "later")
        #expect(try restarted.storage.queue.all().isEmpty)
    }
}

/// `reorderQueued` and `editQueued`: the line changes for everyone (`queueChanged`), on disk too, and the next
/// turn takes the first message of the new line with its new text, also after a restart.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubQueueEditTests {
    func queue(_ text: String, _ harness: HubHarness, _ session: ClientSession) async -> String {
        let answer = await harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: text, mode: .queue)), session)
        guard case .response(_, .accepted(let accepted)) = answer, let id = accepted.queuedId else { return "" }
        return id
    }

    func lastLine(_ frames: [ServerMessage]) -> [String]? {
        frames.compactMap { if case .queueChanged(let c) = $0 { c.items.map(\.text) } else { nil } }.last
    }

    @Test func reorderedAndEditedLineIsAnnouncedKeptAndStarted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        do {
            let harness = try await HubHarness(directory: directory)
            let (phone, laptop) = try await ThreadHubQueueTests().running(harness)
            let first = await queue("first", harness, phone)
            let second = await queue("second", harness, phone)
            let frames = try await harness.waitFor(laptop) {
                if case .queueChanged(let c) = $0 { c.items.count == 2 } else { false }
            }
            #expect(lastLine(frames) == ["first", "second"])
            let reorder = BridgeRequest(.reorderQueued, ReorderQueued(threadId: "t1", ids: [second, first]))
            #expect(await harness.request(reorder, laptop).errorCode == nil)
            let stale = BridgeRequest(.reorderQueued, ReorderQueued(threadId: "t1", ids: [first]))
            #expect(await harness.request(stale, phone).errorCode == .conflict)
            // The first form (the frame's id is the message's queuedId), then the new one: both edit the message.
            let oldForm = #"{"kind":"editQueued","id":"\#(first)","threadId":"t1","text":"first, once"}"#
            let (oldId, oldEdit) = try #require(try ClientMessage.decode(Data(oldForm.utf8)).requestFrame)
            #expect(await harness.request(oldEdit, phone, id: oldId).errorCode == nil)
            let newForm = #"{"kind":"editQueued","id":"e1","threadId":"t1","queuedId":"\#(first)","text":"first, edited"}"#
            let (newId, newEdit) = try #require(try ClientMessage.decode(Data(newForm.utf8)).requestFrame)
            let answer = await harness.request(newEdit, phone, id: newId)
            #expect(answer == .response(id: "e1", .accepted(Accepted(threadId: "t1", queuedId: first))), "\(answer)")
            #expect(
                await harness.request(BridgeRequest(.editQueued, EditQueued(threadId: "t1", queuedId: first, text: "  ")), phone).errorCode
                    == .badRequest)
            #expect(
                await harness.request(BridgeRequest(.editQueued, EditQueued(threadId: "t1", queuedId: "q-nope", text: "x")), phone)
                    .errorCode == .notFound)
            let changed = try await harness.waitFor(laptop) {
                if case .queueChanged(let c) = $0 {
                    c.items.first?.text == "second" && c.items.last?.text == "first, edited"
                } else {
                    false
                }
            }
            #expect(lastLine(changed) == ["second", "first, edited"])
            // A client subscribing now gets the line as it is.
            let late = await harness.session()
            _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), late)
            let seen = try await harness.waitFor(late) { if case .queueChanged = $0 { true } else { false } }
            #expect(lastLine(seen) == ["second", "first, edited"])
        }
        // After a restart: the same line, announced again, and the first of the new order starts.
        let restarted = try await HubHarness(directory: directory)
        restarted.codexKnowsThread("t1", cwd: restarted.project)
        let phone = await restarted.session()
        _ = await restarted.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1", afterSeq: 0)), phone)
        let frames = try await restarted.waitFor(phone) {
            if case .messageUnqueued(let u) = $0, u.reason == .started { true } else { false }
        }
        #expect(
            frames.contains { if case .queueChanged(let c) = $0 { c.items.map(\.text) == ["second", "first, edited"] } else { false } })
        #expect(restarted.codex.requests("turn/start").last?["input"]?.arrayValue?.first?["text"]?.stringValue == "second")
        #expect(try restarted.storage.queue.all().map(\.announcement.text) == ["first, edited"])
    }
}

/// A queued turn that ends before Codex answers its `turn/start` still lets the next queued message start.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubFastQueueTests {
    @Test func aTurnOverBeforeItsStartIsAnsweredDoesNotStallTheQueue() async throws {
        let harness = try await HubHarness()
        let (phone, laptop) = try await ThreadHubQueueTests().running(harness)
        for text in ["second", "third"] {
            #expect(
                await harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: text, mode: .queue)), phone).errorCode
                    == nil)
        }
        let codex = harness.codex
        let counter = Counter()
        codex.onAsync("turn/start") { _ in
            let id = "fast-\(counter.next())"
            let before = try harness.storage.journal.lastSeq()
            await codex.notify("turn/started", ["threadId": "t1", "turn": ["id": .string(id)]])
            await codex.notify("turn/completed", ["threadId": "t1", "turn": ["id": .string(id), "status": "failed"]])
            // The whole turn is over (the hub journaled its end) before this answer arrives.
            try await harness.until("\(id) journaled as completed") {
                try await harness.storage.journal.readFrames(after: before, limit: 100).contains {
                    $0.text.contains("turn/completed") && $0.text.contains(id)
                }
            }
            return ["turn": ["id": .string(id)]]
        }
        await harness.codex.notify("turn/completed", ["threadId": "t1", "turn": ["id": "turn-1", "status": "completed"]])
        var started: [String] = []
        try await harness.until("two queued messages started") {
            for case .messageUnqueued(let u) in harness.frames(laptop) where u.reason == .started { started.append(u.turnId ?? "") }
            return started.count >= 2
        }
        #expect(started == ["fast-1", "fast-2"])
        #expect(
            harness.codex.requests("turn/start").compactMap { $0["input"]?.arrayValue?.first?["text"]?.stringValue } == [
                "p", "second", "third",
            ])
    }
}

final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}

extension ClientMessage {
    /// A request frame's id and request.
    fileprivate var requestFrame: (id: String, request: BridgeRequest)? {
        if case .request(let id, let request) = self { (id, request) } else { nil }
    }
}
