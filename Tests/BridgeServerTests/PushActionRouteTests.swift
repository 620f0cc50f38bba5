import BridgeHub
import BridgeProtocol
import BridgePush
import BridgeStore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

@testable import BridgeServer

/// `POST /push/action` in-process: the real route, credential check, device registry and audit log, and a real
/// ``ActionTokenBook`` behind ``ActionTokenRedeeming``; the answerer behind `NotificationAnswering` records what
/// it was asked.
@Suite struct PushActionRouteTests {
    final class Tokens: ActionTokenRedeeming {
        private let book = Mutex(ActionTokenBook())
        func mint(_ approvalId: String, owner: String) -> String { book.withLock { $0.mint(approvalId: approvalId, owner: owner) } }
        func redeem(token: String, presenter: String?) async -> ActionTokenBook.Binding? {
            book.withLock { $0.redeem(token, presenter: presenter) }
        }
    }

    /// Accepts every approval but `a-answered`, which was answered meanwhile.
    final class Answerer: NotificationAnswering {
        let asked = Mutex<[String]>([])
        func answerFromNotification(approvalId: String, decision: ApprovalDecision, owner: String) async throws -> Accepted {
            asked.withLock { $0.append("\(approvalId) \(decision.rawValue) \(owner)") }
            if approvalId == "a-answered" { throw HubError(.approvalNotPending, "approval a-answered is not pending") }
            return Accepted(threadId: "t1", approvalId: approvalId)
        }
    }

    static func body(_ token: String, _ decision: String = "accept") -> ByteBuffer {
        ByteBuffer(string: #"{"token":"\#(token)","decision":"\#(decision)"}"#)
    }

    @Test func aTokenAnswersOnceForItsDeviceAndEveryRefusalSaysWhy() async throws {
        let fixture = try await RouteFixture()
        let tokens = Tokens()
        let answerer = Answerer()
        let app = fixture.application {
            $0.pushAction = PushActionRoute(tokens: tokens, devices: fixture.registry, auditor: fixture.auditor, answerer: answerer)
        }
        let driver = fixture.driver.deviceId
        try await app.test(.router) { client in
            func post(_ body: ByteBuffer, _ headers: HTTPFields = [:]) async throws -> TestResponse {
                try await client.execute(uri: "/push/action", method: .post, headers: headers, body: body)
            }
            // Bad bodies: 422 (never 400, which closes the connection), or 413 past 4 KiB.
            for body in ["", "{}", #"{"token":"x"}"#, #"{"token":"x","decision":"cancel"}"#, #"{"token":"x","decision":"maybe"}"#] {
                let response = try await post(ByteBuffer(string: body))
                #expect(response.status == .unprocessableContent && RouteFixture.code(response) == "bad_request", "\(body)")
            }
            let huge = try await post(ByteBuffer(string: #"{"token":""# + String(repeating: "x", count: 5000) + #"","decision":"accept"}"#))
            #expect(huge.status == .contentTooLarge && RouteFixture.code(huge) == "too_large")
            // An unknown token, and a bearer that is not a device token, are refused.
            #expect(try await post(Self.body("unknown")).status == .forbidden)
            let token = tokens.mint("a1", owner: driver)
            let badBearer = try await post(Self.body(token), RouteFixture.bearer("not-a-token"))
            #expect(badBearer.status == .forbidden && RouteFixture.code(badBearer) == "unauthorized")
            #expect(try await post(Self.body(token), RouteFixture.bearer(fixture.secret)).status == .forbidden)
            // Another device's bearer does not use it either; its own device's does, once.
            #expect(try await post(Self.body(token), RouteFixture.bearer(fixture.watcher.deviceToken)).status == .forbidden)
            let answered = try await post(Self.body(token), RouteFixture.bearer(fixture.driver.deviceToken))
            #expect(answered.status == .ok)
            let answer = try JSONValue(parsing: Data(answered.body.readableBytesView))
            #expect(answer["ok"] == true && answer["approvalId"] == "a1" && answer["decision"] == "accept")
            #expect(try await post(Self.body(token)).status == .forbidden)
            // Answered meanwhile: 409.
            let late = try await post(Self.body(tokens.mint("a-answered", owner: driver), "decline"))
            #expect(late.status == .conflict && RouteFixture.code(late) == "approval_not_pending")
            // A device that may not approve cannot answer with its token.
            let watcherToken = tokens.mint("a2", owner: fixture.watcher.deviceId)
            let forbidden = try await post(Self.body(watcherToken))
            #expect(forbidden.status == .forbidden && RouteFixture.code(forbidden) == "forbidden")
            // Nor can a device revoked since the notification was sent.
            let revokedToken = tokens.mint("a3", owner: driver)
            _ = try await fixture.registry.revoke(id: driver)
            let revoked = try await post(Self.body(revokedToken))
            #expect(revoked.status == .forbidden && RouteFixture.code(revoked) == "unauthorized")
            // Only POST is routed.
            #expect(try await client.execute(uri: "/push/action", method: .get).status == .notFound)
        }
        #expect(answerer.asked.withLock { $0 } == ["a1 accept \(driver)", "a-answered decline \(driver)"])
        // Answers and the scope and revocation refusals are audited as the notification's.
        let audited = try await fixture.audit.entries().filter { $0.actor == .notification }
        #expect(audited.map(\.outcome).sorted() == ["forbidden", "ok", "unauthorized"])
    }
}
