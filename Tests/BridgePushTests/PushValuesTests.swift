import Foundation
import Testing

@testable import BridgePush

@Suite struct PushValuesTests {
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"

    static let open = PushEndpointPolicy()

    /// Seen failing before the fix: http on any loopback port and https to private or link-local addresses
    /// were accepted.
    @Test func subscriptionNeedsHttpsOnAPublicAddressUnlessTheHostIsAllowed() throws {
        _ = try ValidatedSubscription(
            endpoint: "https://push.example/x", p256dh: Self.p256dh, auth: Self.auth, events: nil, policy: Self.open)
        _ = try ValidatedSubscription(endpoint: "https://8.8.8.8/x", p256dh: Self.p256dh, auth: Self.auth, events: nil, policy: Self.open)
        for bad in [
            "http://push.example/x", "http://127.0.0.1:9/x", "http://[::1]:9/x", "https://127.0.0.1:2375/v1.41/containers/x/kill",
            "https://169.254.169.254/latest/meta-data", "https://10.1.2.3/x", "https://[fd00::1]/x", "https://[::ffff:192.168.1.1]/x",
            "https://0.0.0.0/x", "https://[fe80::1]/x", "ftp://push.example/x", "/relative", "https://user:pw@push.example/",
            "https://push.example/" + String(repeating: "a", count: 2100),
        ] {
            #expect(throws: PushError.self) {
                try ValidatedSubscription(endpoint: bad, p256dh: Self.p256dh, auth: Self.auth, events: nil, policy: Self.open)
            }
        }
        let allowed = PushEndpointPolicy(allowedHosts: ["127.0.0.1", "[::1]"])
        _ = try ValidatedSubscription(endpoint: "http://127.0.0.1:9/x", p256dh: Self.p256dh, auth: Self.auth, events: nil, policy: allowed)
        _ = try ValidatedSubscription(endpoint: "http://[::1]:9/x", p256dh: Self.p256dh, auth: Self.auth, events: nil, policy: allowed)
        #expect(throws: PushError.self) {
            try ValidatedSubscription(endpoint: "http://127.0.0.2:9/x", p256dh: Self.p256dh, auth: Self.auth, events: nil, policy: allowed)
        }
        #expect(throws: PushError.self) {
            try ValidatedSubscription(endpoint: "https://p.example", p256dh: "AAAA", auth: Self.auth, events: nil, policy: Self.open)
        }
        #expect(throws: PushError.self) {
            try ValidatedSubscription(endpoint: "https://p.example", p256dh: Self.p256dh, auth: "AAAA", events: nil, policy: Self.open)
        }
        #expect(throws: PushError.self) {
            try ValidatedSubscription(
                endpoint: "https://p.example", p256dh: Self.p256dh, auth: Self.auth, events: ["everything"], policy: Self.open)
        }
        let some = try ValidatedSubscription(
            endpoint: "https://p.example", p256dh: Self.p256dh, auth: Self.auth, events: ["approval"], policy: Self.open)
        #expect(some.events == [.approval])
    }

    @Test func tokensAreSingleUseBoundAndExpire() {
        var book = ActionTokenBook(lifetime: .seconds(60))
        let start = ContinuousClock.now
        let token = book.mint(approvalId: "ap-1", owner: "dev-a", now: start)
        #expect(book.redeem(token, presenter: "dev-b", now: start) == nil)
        #expect(book.redeem(token, now: start) == ActionTokenBook.Binding(approvalId: "ap-1", owner: "dev-a"))
        #expect(book.redeem(token, now: start) == nil)
        let late = book.mint(approvalId: "ap-2", owner: "dev-a", now: start)
        #expect(book.redeem(late, now: start + .seconds(61)) == nil)
        let resolved = book.mint(approvalId: "ap-3", owner: "dev-a", now: start)
        book.approvalResolved("ap-3")
        #expect(book.redeem(resolved, now: start) == nil)
        #expect(book.redeem("not-a-token", now: start) == nil)
    }

    @Test func payloadStaysUnderThreeKilobytes() throws {
        let notice = PushNotice(
            kind: .approval, title: "Approval needed", body: String(repeating: "é", count: 5000), tag: "approval-ap-1", threadId: "t/1",
            approvalId: "ap-1")
        let payload = notice.payload(token: "tok")
        #expect(payload.count <= PushNotice.maxPayloadBytes)
        let object = try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
        #expect(object?["token"] as? String == "tok")
        #expect(object?["url"] as? String == "/#/t/t%2F1")
        #expect(PushNotice.firstLine("\n  \nfirst\u{1B}[31m line\nsecond") == "first[31m line")
    }

    @Test func notifyTargetsAndNtfyHeaders() throws {
        #expect(try NotifyTarget("https://ntfy.sh/topic").style == .ntfy)
        #expect(try NotifyTarget("ntfy:http://127.0.0.1:8/topic").style == .ntfy)
        #expect(try NotifyTarget("https://hooks.example/x").style == .webhook)
        #expect(throws: PushError.self) { try NotifyTarget("mailto:x@y") }
        let secret = try NotifyTarget("https://user:hunter2@ntfy.example/topic?auth=tk_secret")
        #expect(
            !secret.description.contains("hunter2") && !secret.description.contains("tk_secret") && !secret.description.contains("topic"))
        let notice = PushNotice(kind: .approval, title: "Approval needed", body: "rm -rf build", tag: "a", threadId: "t", approvalId: "ap")
        let headers = NotifySender.ntfyHeaders(notice, actions: .init(url: "https://h:9099/push/action", token: "TOK"))
        let actions = try #require(headers.first { $0.0 == "Actions" }?.1)
        #expect(actions.contains("http, Approve, https://h:9099/push/action, method=POST"))
        #expect(actions.contains(#"body='{"token":"TOK","decision":"decline"}'"#))
        #expect(headers.contains { $0 == ("Priority", "5") })
        #expect(NotifySender.headerText("Approbation nécessaire").hasPrefix("=?UTF-8?B?"))
    }

    @Test func retryAfterReadsSecondsAndDates() {
        #expect(WebPushSender.retryAfter("3") == .seconds(3))
        #expect(WebPushSender.retryAfter(nil) == nil)
        #expect(WebPushSender.retryAfter("soon") == nil)
        #expect(WebPushSender.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT") == .seconds(0))
    }
}
