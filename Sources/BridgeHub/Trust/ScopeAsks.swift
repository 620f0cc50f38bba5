import BridgeProtocol
import BridgeStore
import Foundation

/// Which ended requests for scopes a device was told of (`scopeRequestEnded`), so that the ``ScopeWatcher``'s
/// overlapping reads (a refusal written by another process just before a read's bound may commit just after it)
/// tell each once. A value type, tested alone.
struct ScopeAsks: Sendable {
    /// How far back each read looks (beyond the last read's bound).
    static let overlap: TimeInterval = 2
    /// What was told, with when it ended.
    private var told: [String: Date] = [:]

    /// Of `ended` (read at `now`), those not told yet; remembers them until no later read can return them (the
    /// next read looks back to `now - overlap`, however long from now it comes: reads follow changes, not a clock).
    mutating func untold(_ ended: [EndedScopeRequest], now: Date) -> [EndedScopeRequest] {
        let fresh = ended.filter { told.updateValue(Self.end(of: $0), forKey: "\($0.request.deviceId) \($0.request.checkCode)") == nil }
        told = told.filter { $0.value >= now.addingTimeInterval(-Self.overlap) }
        return fresh
    }

    private static func end(of ended: EndedScopeRequest) -> Date {
        ended.denied ? ended.request.deniedAt ?? ended.request.expiresAt : ended.request.expiresAt
    }

    /// What to tell the device of a request that ended, holding `held` now (nil: not a paired device any more):
    /// nothing when it holds every scope it asked for (granted meanwhile, e.g. by `devices scope`).
    static func message(for ended: EndedScopeRequest, held: Scopes?) -> ScopeRequestEnded? {
        guard let held, !ended.request.scopes.subtracting(held).isEmpty else { return nil }
        return ScopeRequestEnded(scopes: ended.request.scopes, check: ended.request.checkCode, outcome: ended.denied ? .denied : .expired)
    }
}
