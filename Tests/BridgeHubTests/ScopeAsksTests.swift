import BridgeProtocol
import BridgeStore
import Foundation
import Testing

@testable import BridgeHub

/// The watcher's overlapping reads of ended requests for scopes tell each once; a device that holds the scopes
/// (granted meanwhile) or is gone is not told.
@Suite("ScopeAsks")
struct ScopeAsksTests {
    let at = Date(timeIntervalSince1970: 1_750_000_000)

    func ended(_ device: String, check: String = "0427", scopes: String = "run", denied: Bool = true) throws -> EndedScopeRequest {
        EndedScopeRequest(
            request: ScopeRequestRecord(
                deviceId: device, scopes: try Scopes(parsing: scopes), checkCode: check, createdAt: at, expiresAt: at + 600,
                deniedAt: denied ? at + 5 : nil),
            denied: denied)
    }

    @Test func eachEndedRequestIsToldOnce() throws {
        var asks = ScopeAsks()
        let a = try ended("a")
        let b = try ended("b", denied: false)
        #expect(asks.untold([a], now: at) == [a])
        #expect(asks.untold([a, b], now: at + 1) == [b])  // the next read overlaps the last
        #expect(asks.untold([a, b], now: at + 2).isEmpty)
        // The device asked again (a new check code) and was refused again: told again.
        let again = try ended("a", check: "9911")
        #expect(asks.untold([again], now: at + 3) == [again])
    }

    /// Reads follow changes now, not a 1 s clock: one may come long after the last, and its window still looks
    /// back past the last read's bound (seen failing when what was told was forgotten by the clock, 4 s after).
    @Test func aReadLongAfterTheLastStillTellsOnce() throws {
        var asks = ScopeAsks()
        let a = try ended("a")  // refused at +5
        #expect(asks.untold([a], now: at + 6) == [a])
        #expect(asks.untold([a], now: at + 60).isEmpty)  // the window (at + 4, at + 60] holds it again
        #expect(asks.untold([], now: at + 120).isEmpty)
    }

    @Test func theMessageSaysDeniedOrExpiredUnlessTheScopesAreHeld() throws {
        let held = try Scopes(parsing: "observe,operate")
        #expect(
            ScopeAsks.message(for: try ended("a"), held: held)
                == ScopeRequestEnded(scopes: try Scopes(parsing: "run"), check: "0427", outcome: .denied))
        #expect(ScopeAsks.message(for: try ended("a", denied: false), held: held)?.outcome == .expired)
        #expect(ScopeAsks.message(for: try ended("a"), held: try Scopes(parsing: "observe,run")) == nil)
        #expect(ScopeAsks.message(for: try ended("a"), held: nil) == nil)
    }
}
