import BridgeProtocol
import CodexControl
import Foundation
import Testing

@testable import BridgeHub

/// The automatic reviewer's denials and the rate-limit relay, without sockets or Codex: Codex 0.163's notifications
/// as recorded from a run against the scripted model.
@Suite struct AutoReviewDeskTests {
    /// `item/autoApprovalReview/completed` as Codex 0.163 sent it for a denied `require_escalated` command.
    static let denied = #"""
        {"threadId":"t1","turnId":"u1","startedAtMs":1795797285132,"completedAtMs":1795797285221,
         "reviewId":"r1","targetItemId":"call_1","decisionSource":"agent",
         "review":{"status":"denied","riskLevel":"high","userAuthorization":"unknown","rationale":"nope"},
         "action":{"type":"command","source":"unifiedExec","command":"/bin/bash -lc 'touch escalated.txt'","cwd":"/w"}}
        """#

    static func params(_ text: String) throws -> JSONValue { try JSONValue(parsing: Data(text.utf8)) }

    @Test func aDenialBecomesTheEventCodexTakesBack() throws {
        var desk = AutoReviewDesk()
        desk.observe(.codex(.itemAutoApprovalReviewCompleted), params: try Self.params(Self.denied), threadId: "t1")
        let denial = try #require(desk.denial("r1", of: "t1"))
        let expected = try Self.params(
            #"""
            {"id":"r1","turn_id":"u1","target_item_id":"call_1","status":"denied","risk_level":"high",
             "user_authorization":"unknown","rationale":"nope","decision_source":"agent",
             "action":{"type":"command","source":"unified_exec","command":"/bin/bash -lc 'touch escalated.txt'","cwd":"/w"}}
            """#)
        #expect(denial.event == expected)
        // Another thread's, or once it was overridden: none.
        #expect(desk.denial("r1", of: "t2") == nil)
        desk.remove("r1")
        #expect(desk.denial("r1", of: "t1") == nil)
    }

    @Test func onlyDenialsAreKeptAndOnlyTheLatestOnes() throws {
        var desk = AutoReviewDesk()
        let approved = Self.denied.replacingOccurrences(of: #""status":"denied""#, with: #""status":"approved""#)
        desk.observe(.codex(.itemAutoApprovalReviewCompleted), params: try Self.params(approved), threadId: "t1")
        desk.observe(.codex(.itemAutoApprovalReviewStarted), params: try Self.params(Self.denied), threadId: "t1")
        #expect(desk.denial("r1", of: "t1") == nil)
        for n in 0...AutoReviewDesk.limit {
            let text = Self.denied.replacingOccurrences(of: #""reviewId":"r1""#, with: #""reviewId":"r\#(n)""#)
            desk.observe(.codex(.itemAutoApprovalReviewCompleted), params: try Self.params(text), threadId: "t1")
        }
        #expect(desk.denial("r0", of: "t1") == nil)
        #expect(desk.denial("r\(AutoReviewDesk.limit)", of: "t1") != nil)
    }

    @Test func aRateLimitSnapshotGoesOutOncePerChange() throws {
        var relay = RateLimitRelay()
        let same = try Self.params(#"{"rateLimits":{"limitId":"codex","primary":null}}"#)
        let seen = [
            relay.admit(same), relay.admit(same),
            relay.admit(try Self.params(#"{"rateLimits":{"limitId":"codex","primary":{"usedPercent":40}}}"#)), relay.admit(same),
        ]
        #expect(seen == [true, false, true, true])
    }
}
