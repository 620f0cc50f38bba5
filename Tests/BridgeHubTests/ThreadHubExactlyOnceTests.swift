import BridgeProtocol
import BridgeStore
import Foundation
import Testing

@testable import BridgeHub

/// Exactly-once in-process: a request retried with the same id by the same client (same connection, a
/// concurrent retry, or after a reconnect) acts once and gets the first answer again.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubExactlyOnceTests {
    @Test func aRetriedRequestActsOnceAndGetsTheFirstAnswer() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session(clientId: "phone-1")
        let message = BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "only once"))
        // Two attempts at once, then one more after the first answered.
        async let first = harness.request(message, phone, id: "r1")
        async let concurrent = harness.request(message, phone, id: "r1")
        let (a, b) = await (first, concurrent)
        let later = await harness.request(message, phone, id: "r1")
        #expect(a.kind == "accepted" && b.kind == "accepted" && later.kind == "accepted")
        #expect(harness.codex.requests("turn/start").count == 1)

        // After a reconnect (a new session of the same client) the stored answer comes back, nothing is sent.
        let reconnected = await harness.session(clientId: "phone-1")
        #expect(await harness.request(message, reconnected, id: "r1").kind == "accepted")
        #expect(harness.codex.requests("turn/start").count == 1)

        // The same id for another kind of request is refused; another client's "r1" is its own.
        #expect(await harness.request(BridgeRequest(.interrupt, ThreadRef(threadId: "t1")), reconnected, id: "r1").errorCode == .badRequest)
        let tablet = await harness.session(clientId: "tablet-1")
        #expect(await harness.request(message, tablet, id: "r1").kind == "accepted")
        #expect(harness.codex.requests("turn/start").count == 2)
    }

    /// The first attempt's stored answer and its audit entry are written in one transaction after the answer went out;
    /// a `listAudit` sent right after an answer lists it, and a retry gets the stored answer (and its own entry).
    @Test func anAnswersStoredCopyAndAuditEntryAreWrittenTogetherAndListedAtOnce() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let phone = await harness.session(clientId: "phone-1")
        for round in 1...20 {
            let message = BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "round \(round)"))
            #expect(await harness.request(message, phone, id: "m\(round)").kind == "accepted")
            // Right after the answer, as a phone would: the list already holds the entry of the request answered.
            let listed = await harness.request(BridgeRequest(.listAudit, ListAudit(limit: 100)), phone)
            guard case .response(_, .audit(let audit)) = listed else {
                Issue.record("listAudit answered \(listed.kind)")
                return
            }
            #expect(audit.entries.filter { $0.kind == "sendMessage" }.count == round, "round \(round)")
        }
        await harness.hub.answers.settled()
        let key = try #require(ClientMemory.key(deviceId: nil, clientId: "phone-1"))
        #expect(try await harness.storage.memory.answer(to: "m1", from: key, maxAge: 3600)?.kind == "sendMessage")
        // A retry gets the stored answer, acts not again, and is audited on its own.
        let retry = BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "round 1"))
        #expect(await harness.request(retry, phone, id: "m1").kind == "accepted")
        #expect(harness.codex.requests("turn/start").count + harness.codex.requests("turn/steer").count == 20)
        #expect(try await harness.storage.audit.entries(limit: 100).filter { $0.kind == "sendMessage" }.count == 21)
    }

    @Test func aClientTheBridgeCannotRecogniseIsNotDeduplicated() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let anonymous = await harness.session()  // shared secret, no clientId
        let message = BridgeRequest(.sendMessage, SendMessage(threadId: "t1", text: "twice"))
        _ = await harness.request(message, anonymous, id: "r1")
        _ = await harness.request(message, anonymous, id: "r1")
        #expect(harness.codex.requests("turn/start").count == 2)
    }
}
