import BridgeLive
import BridgeProtocol
import NIOCore

/// The voice service's state (``VoiceService``, behind its lock): the sessions (``VoiceSessions``) and, for each
/// start still waiting for Codex, where its outcome goes. Codex answers `thread/realtime/start` with `{}` at once and tells how it went by notification
/// (`thread/realtime/sdp`, `started`, `error`, `closed`), which may come before that answer: the waiter is in place
/// before the request is sent.
struct VoiceDesk: Sendable {
    /// How a start ended, as the notifications tell it.
    enum Outcome: Sendable, Hashable {
        /// The model's SDP answer (WebRTC).
        case sdp(String)
        /// Codex connected to the model (websocket).
        case started
        /// Codex or the provider failed, or the session ended before it was answered.
        case failed(String)
    }

    /// Why a session ended (`bridge/voice` `reason`).
    enum EndReason: String, Sendable {
        case stopped, disconnected, closed, error, codexStopped
    }

    var sessions = VoiceSessions()
    /// Threads whose current start Codex has accepted (`thread/realtime/started`): a `closed` before that belongs to
    /// the thread's previous session (Codex tells its end after the answer to the stop), not to the start.
    var acceptedByCodex: Set<String> = []
    /// The stops sent to Codex, by thread: a new start on the thread waits for its stop first, or the stop could
    /// reach Codex after the start and end the new session.
    var stopping: [String: Task<Void, Never>] = [:]
    /// When Codex last passed the readiness checks (sign-in, provider, feature), and in which ``epoch``:
    /// `account/read` asks ChatGPT's backend each time (a round trip on the start's path), and none of it changes
    /// without `account/updated` or a Codex restart (each a new epoch).
    var ready: (epoch: Int, at: ContinuousClock.Instant)?
    /// Counts account changes and Codex's stops: a check that began in an earlier epoch counts for nothing.
    var epoch = 0
    /// Sessions Codex answered whose `started` event is on its way to the hub (the start's handler publishes it).
    private var announcing: Set<UInt64> = []
    /// How the sessions in ``announcing`` that ended meanwhile ended: announced after their `started`, by the start.
    private var lateEnds: [UInt64: (reason: EndReason, message: String?)] = [:]
    /// How long a passed check counts.
    static let readyFor: Duration = .seconds(600)

    /// A websocket session's audio on its phone's live stream (VoiceService+Audio). Its two pumps end with the
    /// stream (``LiveStream/end()``) and ``out``'s finish.
    struct Audio: Sendable {
        let attempt: UInt64
        let stream: LiveStream
        /// The model's audio, waiting for the stream (its sender waits while the phone reads slowly).
        let out: AsyncStream<ByteBuffer>.Continuation
    }

    /// The running websocket sessions' audio, by thread.
    var audio: [String: Audio] = [:]
    private var waiters: [String: (attempt: UInt64, continuation: AsyncStream<Outcome>.Continuation)] = [:]

    /// Codex answered `attempt`'s start: it runs now, and its `started` event is on its way (``announced(_:)``
    /// once it went out). Nil when that start is no longer the thread's.
    mutating func announcing(_ threadId: String, attempt: UInt64) -> VoiceSessions.Session? {
        guard let running = sessions.started(threadId, attempt: attempt) else { return nil }
        announcing.insert(attempt)
        return running
    }

    /// A session ended (``VoiceSessions/end(_:attempt:)``): whether its `ended` event goes out now. Not for a session
    /// never announced `started`; for one whose `started` is still on its way, later (``announced(_:)``).
    mutating func announcesEnd(of ended: VoiceSessions.Session, reason: EndReason, message: String?) -> Bool {
        guard ended.phase == .running else { return false }
        guard announcing.contains(ended.attempt) else { return true }
        lateEnds[ended.attempt] = (reason, message)
        return false
    }

    /// `attempt`'s `started` went out: how it ended meanwhile, if it did (its `ended` goes out now).
    mutating func announced(_ attempt: UInt64) -> (reason: EndReason, message: String?)? {
        announcing.remove(attempt)
        return lateEnds.removeValue(forKey: attempt)
    }

    /// An account change or Codex's stop: the readiness checks run again.
    mutating func newEpoch() {
        epoch += 1
        ready = nil
    }

    /// Where the outcome of `attempt`'s start on `threadId` goes (replacing an earlier start's, which fails).
    mutating func wait(_ threadId: String, attempt: UInt64) -> AsyncStream<Outcome> {
        let (stream, continuation) = AsyncStream<Outcome>.makeStream(bufferingPolicy: .bufferingOldest(1))
        waiters.updateValue((attempt, continuation), forKey: threadId)?.continuation.yield(.failed("replaced by a new voice session"))
        return stream
    }

    /// Tells the start waiting on `threadId` how it went (nothing when none waits).
    mutating func resolve(_ threadId: String, _ outcome: Outcome) {
        waiters.removeValue(forKey: threadId)?.continuation.yield(outcome)
    }

    /// Forgets `attempt`'s waiter (its start is over, answered or not).
    mutating func forget(_ threadId: String, attempt: UInt64) {
        guard waiters[threadId]?.attempt == attempt else { return }
        waiters.removeValue(forKey: threadId)?.continuation.finish()
    }
}
