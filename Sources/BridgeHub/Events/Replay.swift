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
    /// A replay waits while the session has more frames than this queued (the client reads slowly).
    static let highWater = 2048
}
