import BridgeProtocol

/// Work under way that later work must wait for: replays per session (one after another) and requests being
/// answered (a retry waits for the first answer).
struct HubWork {
    /// The last replay started per session.
    var replayTails: [UInt64: Task<Void, Never>] = [:]
    /// Requests (client key + id) being answered; retries wait here for the first answer.
    var inflight: [String: [CheckedContinuation<ServerMessage, Never>]] = [:]
    /// The bridge is shutting down (``ThreadHub/drain(grace:)``): running turns may finish, none starts.
    var shuttingDown = false
}
