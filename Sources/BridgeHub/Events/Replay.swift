import BridgeStore
import Logging

/// One replay of the journal to run for one session (a resume in the hello or a `subscribe` with `afterSeq`):
/// `(after, through]` of some threads, read page by page (ThreadHub+Resume), and the bounds a replay keeps to.
struct Replay {
    var after: Int64
    var through: Int64
    /// nil: every thread.
    var threads: Set<String>?
    /// Whether messages relayed from linked machines are replayed too (a fleet session).
    var relayed = false

    /// Journal rows read per page.
    static let pageSize = 1024
    /// Held live frames beyond this close the session as a slow reader (its outbox would overflow too).
    static let maxHeldFrames = 4096
    /// Held live frames over this many bytes do too (64 MiB: a linked machine's frames may be up to 8 MiB each).
    static let maxHeldBytes = 64 << 20
    /// A replay waits while the session has more frames than this queued (the client reads slowly).
    static let highWater = 2048
}

extension Replay {
    /// Queues the journaled messages of `(after, through]` page by page, waiting while the client has many frames
    /// queued. Touches no hub state: the session's live frames are held meanwhile (ThreadHub+Resume), and a session
    /// that closed refuses the next frame, which ends the replay.
    func send(from journal: EventJournal, to session: ClientSession) async {
        var cursor = after
        var sent = 0
        while cursor < through {
            let page: [(seq: Int64, text: String)]
            do {
                page = try await journal.readFrames(
                    after: cursor, through: through, threads: threads, relayed: relayed, limit: Self.pageSize)
            } catch {
                session.logger.error("Cannot read the journal; closing so that the client resumes", metadata: ["error": "\(error)"])
                session.closeAsSlowReader()
                return
            }
            guard let last = page.last else { break }
            for entry in page {
                guard session.sendEncoded(entry.text) else { return }
            }
            sent += page.count
            cursor = last.seq
            await session.waitUntilQueued(atMost: Self.highWater)
        }
        session.logger.debug(
            "Replayed",
            metadata: ["bridge.replay.after": "\(after)", "bridge.replay.through": "\(through)", "bridge.replay.count": "\(sent)"])
    }
}
