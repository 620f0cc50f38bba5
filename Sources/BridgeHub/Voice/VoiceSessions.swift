import BridgeProtocol

/// The threads' voice sessions as a value type with no I/O: at most one per thread, owned by the connection that
/// started it, `starting` until Codex answers (its SDP answer, or `thread/realtime/started`), then `running` until
/// it ends. The voice service asks it what to do and does it (``VoiceService``): every way a session ends goes through
/// ``end(_:attempt:)``, so a session is announced `ended` at most once and only if it was announced `started`.
struct VoiceSessions: Sendable {
    enum Phase: Sendable, Hashable {
        case starting, running
    }

    struct Session: Sendable, Hashable {
        let threadId: String
        /// The client session (connection) that started it.
        let owner: UInt64
        let transport: VoiceTransport
        /// The paired device that started it, if any.
        let deviceId: String?
        /// Tells this start from a later one on the same thread.
        let attempt: UInt64
        var phase: Phase
    }

    /// What ``admit(threadId:owner:transport:deviceId:)`` decided.
    enum Admission: Sendable, Hashable {
        /// Start it; `replacing` is the same connection's earlier session on the thread, ended now.
        case admitted(Session, replacing: Session?)
        /// Another connection's session runs on the thread.
        case conflict(Session)
    }

    private var byThread: [String: Session] = [:]
    private var attempts: UInt64 = 0

    /// A new session on `threadId` for `owner`, unless another connection has one there.
    mutating func admit(threadId: String, owner: UInt64, transport: VoiceTransport, deviceId: String?) -> Admission {
        let previous = byThread[threadId]
        if let previous, previous.owner != owner { return .conflict(previous) }
        attempts += 1
        let session = Session(
            threadId: threadId, owner: owner, transport: transport, deviceId: deviceId, attempt: attempts, phase: .starting)
        byThread[threadId] = session
        return .admitted(session, replacing: previous)
    }

    /// Codex answered the start of `attempt`: it runs now. Nil when that start is no longer the thread's (ended or
    /// replaced meanwhile).
    mutating func started(_ threadId: String, attempt: UInt64) -> Session? {
        guard var session = byThread[threadId], session.attempt == attempt, session.phase == .starting else { return nil }
        session.phase = .running
        byThread[threadId] = session
        return session
    }

    /// Ends the thread's session (only `attempt`'s, when given): nil when there is none (already ended).
    mutating func end(_ threadId: String, attempt: UInt64? = nil) -> Session? {
        guard let session = byThread[threadId], attempt == nil || session.attempt == attempt else { return nil }
        byThread[threadId] = nil
        return session
    }

    /// The sessions `owner` started, ended (its connection closed).
    mutating func endAll(ownedBy owner: UInt64) -> [Session] {
        let owned = byThread.values.filter { $0.owner == owner }
        for session in owned { byThread[session.threadId] = nil }
        return owned.sorted { $0.attempt < $1.attempt }
    }

    /// Every session, ended (Codex stopped).
    mutating func endAll() -> [Session] {
        let all = byThread.values.sorted { $0.attempt < $1.attempt }
        byThread = [:]
        return all
    }

    /// The thread's session, if any.
    subscript(threadId: String) -> Session? { byThread[threadId] }

    /// How many sessions there are (starting or running).
    var count: Int { byThread.count }
}
