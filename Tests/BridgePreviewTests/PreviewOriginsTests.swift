import Testing

@testable import BridgePreview

/// Each preview on an origin of its own (a port of the range), kept while the bridge runs, handed on only when
/// free, and the origin's data cleared when a browser starts another preview there (issue 44 item 3).
@Suite struct PreviewOriginsTests {
    let a = PreviewOrigins.Key(threadId: "ta", port: 5173)
    let b = PreviewOrigins.Key(threadId: "tb", port: 5173)
    let c = PreviewOrigins.Key(threadId: "ta", port: 3000)

    func origins(_ ports: [Int]) -> PreviewOrigins {
        var origins = PreviewOrigins()
        for port in ports { origins.listening(port) }
        return origins
    }

    @Test func eachPreviewHasItsOwnPortAndKeepsItAcrossRuns() throws {
        var origins = origins([9101, 9102, 9103])
        let givenA = origins.origin(for: a, now: 1, busy: [])
        let pa = try #require(givenA)
        let givenB = origins.origin(for: b, now: 2, busy: [pa])
        let givenC = origins.origin(for: c, now: 3, busy: [pa, givenB ?? 0])  // the same thread's other server too
        let (pb, pc) = (try #require(givenB), try #require(givenC))
        #expect(Set([pa, pb, pc]) == [9101, 9102, 9103])
        let again = origins.origin(for: a, now: 4, busy: [pa, pb, pc])
        #expect(again == pa && origins.holder(of: pb) == b)
        // The next run of the bridge: A asks for the same port first.
        var next = self.origins([9101, 9102, 9103])
        let restarted = next.origin(for: a, now: 1, busy: [])
        #expect(restarted == pa)
    }

    @Test func aPortGoesToAnotherPreviewOnlyWhenFreeLeastRecentlyUsedFirst() throws {
        var origins = origins([9101, 9102])
        let givenA = origins.origin(for: a, now: 1, busy: [])
        let pa = try #require(givenA)
        let givenB = origins.origin(for: b, now: 2, busy: [pa])
        let pb = try #require(givenB)
        // Both live: a third preview is refused rather than sharing an origin or ending one.
        let refused = origins.origin(for: c, now: 3, busy: [pa, pb])
        #expect(refused == nil)
        // Both ended, B used since: A's port, the least recently used, goes to C.
        _ = origins.origin(for: b, now: 4, busy: [])
        let handedOn = origins.origin(for: c, now: 5, busy: [])
        #expect(handedOn == pa && origins.holder(of: pa) == c)
        // A has no port now: while B's and C's previews live it gets none; once B's ended, B's.
        let again = [origins.origin(for: a, now: 6, busy: [pa, pb]), origins.origin(for: a, now: 6, busy: [pa])]
        #expect(again == [nil, pb])
    }

    @Test func aBrowserStartingAnotherPreviewOnAPortClearsItsData() {
        var origins = origins([9101])
        let clears = [
            origins.starting(a, on: 9101, deviceId: "phone"),  // first since the bridge started
            origins.starting(a, on: 9101, deviceId: "phone"),  // the same preview again: its data kept
            origins.starting(a, on: 9101, deviceId: "tablet"),  // another browser's first
            origins.starting(b, on: 9101, deviceId: "phone"),  // another preview had the port
            origins.starting(a, on: 9101, deviceId: "phone"),
            origins.starting(a, on: 9101, deviceId: nil),  // shared-secret browsers cannot be told apart
            origins.starting(a, on: 9101, deviceId: nil),
        ]
        #expect(clears == [true, false, true, true, true, true, true])
    }

    @Test func accessGivesOriginsAndRefusesWhenAllAreHeld() throws {
        let access = PreviewAccess(clock: { 1000 })
        let grant = PreviewGrant(deviceId: "d1", threadId: "ta", port: 5173, connectHost: "127.0.0.1")
        #expect(throws: PreviewError.self) { try access.issue(grant) }  // nothing listens yet
        access.originListening(port: 9101)
        let first = try access.issue(grant)
        #expect(first.originPort == 9101)
        var other = grant
        other.threadId = "tb"
        // A's ticket holds the one port: B's preview is refused, saying how to get more.
        do {
            _ = try access.issue(other)
            Issue.record("a second preview shared the one origin")
        } catch {
            #expect(error.code == .unavailable && error.message.contains("--preview-origins"))
        }
        guard case .success(let redeemed) = access.redeem(first.ticket) else {
            Issue.record("ticket refused")
            return
        }
        #expect(redeemed.session.grant.originPort == 9101)
        #expect(access.starting(redeemed.session))
        #expect(!access.starting(redeemed.session))
        access.end { $0.deviceId == "d1" }
        #expect(try access.issue(other).originPort == 9101)
    }
}
