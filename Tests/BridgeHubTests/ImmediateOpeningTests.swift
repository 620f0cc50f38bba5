import BridgeProtocol
import Foundation
import Logging
import Testing

@testable import BridgeHub

/// A helloAck built from the hub's snapshot (``ThreadHub/immediateOpening(for:principal:)``), the session
/// registered after it (``ThreadHub/sessionRegistered(_:)``).
@Suite(.timeLimit(.minutes(1))) struct ImmediateOpeningTests {
    static func session(_ id: UInt64, hello: Hello = Hello()) -> ClientSession {
        ClientSession(
            id: id, principal: .sharedSecret, hello: hello, remoteAddress: "127.0.0.1",
            logger: Logger(label: "s", factory: { _ in SwiftLogNoOpLogHandler() }), sink: RecordingSink(capacity: 4096), onOverflow: {})
    }

    @Test func onlyASessionThatRestoresNothingIsAckedFromTheSnapshot() async throws {
        let harness = try await HubHarness()
        let hub = harness.hub
        #expect(hub.immediateOpening(for: Hello(), principal: .sharedSecret) != nil)
        #expect(hub.immediateOpening(for: Hello(clientId: "c1"), principal: .sharedSecret) == nil)
        #expect(hub.immediateOpening(for: Hello(resume: ResumeCursor(lastSeq: 0)), principal: .sharedSecret) == nil)
        #expect(hub.immediateOpening(for: Hello(), principal: .device(id: "dev-a")) == nil)
    }

    @Test func theSnapshotSaysWhatTheHubWouldSay() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), phone)
        for index in 0..<5 {
            await harness.codex.notify("item/agentMessage/delta", ["threadId": "t1", "turnId": "turn-1", "delta": .string("\(index)")])
        }
        let last = try await harness.waitFor(phone) { $0.event?.data["delta"]?.stringValue == "4" }.compactMap(\.event).last
        let snapshot = try #require(harness.hub.immediateOpening(for: Hello(), principal: .sharedSecret))
        let opened = await harness.hub.sessionOpened(Self.session(9_000_001))
        #expect(snapshot.lastSeq == last?.seq)
        #expect(snapshot.lastSeq == opened.lastSeq)
        #expect(snapshot.policy == opened.policy)
        #expect(snapshot.resume == nil && snapshot.restoredSubscriptions == nil)
    }

    /// What is published between the ack's snapshot and the registration reaches the client once, through
    /// `subscribe {afterSeq}` from the ack's `lastSeq`.
    @Test func nothingPublishedBeforeTheRegistrationIsLostOrDuplicated() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let driver = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), driver)
        await harness.codex.notify("item/agentMessage/delta", ["threadId": "t1", "turnId": "turn-1", "delta": "before"])
        _ = try await harness.waitFor(driver) { $0.event?.data["delta"]?.stringValue == "before" }

        let snapshot = try #require(harness.hub.immediateOpening(for: Hello(), principal: .sharedSecret))
        let late = Self.session(9_000_002)
        for index in 0..<3 {
            await harness.codex.notify("item/agentMessage/delta", ["threadId": "t1", "turnId": "turn-1", "delta": .string("gap\(index)")])
        }
        _ = try await harness.waitFor(driver) { $0.event?.data["delta"]?.stringValue == "gap2" }
        await harness.hub.sessionRegistered(late)
        #expect(harness.frames(late).isEmpty)  // subscribed to nothing yet

        let answer = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1", afterSeq: snapshot.lastSeq)), late)
        await harness.codex.notify("item/agentMessage/delta", ["threadId": "t1", "turnId": "turn-1", "delta": "live"])
        let events = try await harness.waitFor(late) { $0.event?.data["delta"]?.stringValue == "live" }.compactMap(\.event)
        #expect(events.map { $0.data["delta"]?.stringValue ?? "" } == ["gap0", "gap1", "gap2", "live"])
        guard case .response(_, .subscribed(let subscribed)) = answer else {
            Issue.record("\(answer)")
            return
        }
        #expect(subscribed.resume == .ok)
    }
}
