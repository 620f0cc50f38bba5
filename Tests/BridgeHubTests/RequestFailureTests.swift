import BridgeProtocol
import CodexControl
import Testing

@testable import BridgeHub

/// The one edge where the parts' errors become wire codes, and the limits checked before any work.
@Suite struct RequestFailureTests {
    struct Unexpected: Error {}

    @Test func eachPartsErrorKeepsItsCodeAndAnUnknownOneIsLeftToTheCaller() {
        #expect(
            RequestFailure.message(id: "1", for: HubError(.conflict, "busy")) == ErrorMessage(id: "1", code: .conflict, message: "busy"))
        #expect(RequestFailure.message(id: "2", for: CodexError.unavailable("down"))?.code == .codexUnavailable)
        #expect(RequestFailure.message(id: "3", for: CodexError.timeout("slow"))?.code == .codexError)
        #expect(RequestFailure.message(id: "4", for: Unexpected()) == nil)
        #expect(RequestFailure.codexIsAway(CodexError.exited("gone")) && RequestFailure.codexIsAway(CodexError.unavailable("down")))
        #expect(!RequestFailure.codexIsAway(CodexError.timeout("slow")) && !RequestFailure.codexIsAway(Unexpected()))
    }

    @Test func aThreadIdIsOneTo256Bytes() throws {
        try RequestLimits.checkThreadId(String(repeating: "t", count: RequestLimits.maxThreadIdBytes))
        #expect(throws: HubError.self) { try RequestLimits.checkThreadId("") }
        #expect(throws: HubError.self) {
            try RequestLimits.checkThreadId(String(repeating: "t", count: RequestLimits.maxThreadIdBytes + 1))
        }
    }
}
