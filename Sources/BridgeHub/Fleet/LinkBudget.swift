/// What one linked machine may make the home bridge hold, in bytes and entries (issue 44: caps counted messages
/// while a message could be 16 MiB, so 800 MiB of a linked bridge's events raised the home's memory by 725 MiB and
/// its open approvals pinned 843 MiB more). Every buffer, queue and book a link feeds has its limit here; a link
/// past one is held back (the transport stops reading: TCP's back-pressure) or closed with a reason
/// (``LinkProblem``) that `machines list` and the phones see, and tried again ``pauseAfterProblem`` later.
public struct LinkBudget: Sendable, Hashable {
    /// The largest message the home accepts from a linked bridge: 8 MiB. A bridge's largest messages are its
    /// answers: a `getDiff` of at most 4 MiB of diff (a little more once JSON-escaped), a page of `readThread`
    /// (the web app pages; one of 10 turns is far below); its events are Codex's notifications, each one item. A
    /// larger message closes the link (1009).
    public var maxMessageBytes = 8 << 20
    /// Bytes received from the link and not relayed yet (in the transport, the link's relay buffer, the batch
    /// being journaled): 16 MiB, at least one message of ``maxMessageBytes``. Beyond it the link reads no more
    /// until the relay catches up; the linked bridge's outbox fills, and it closes the link itself if that lasts
    /// (the link then resumes from its cursor, nothing lost). NIO may hold up to ~11 more messages below the
    /// window, so one link pins at most ``inFlightBytes`` + 11 × ``maxMessageBytes`` (about 104 MiB) in the worst
    /// case, a few KiB when it behaves.
    public var inFlightBytes = 16 << 20
    /// Messages waiting to be relayed: 16,384. Beyond it the link is closed (`over_budget`).
    public var waitingMessages = 16_384
    /// The link's approvals and questions kept open for phones that subscribe later: 256 of them, 8 MiB in all.
    /// One more is refused and the link closed (`over_budget`); the linked bridge keeps it, and offers it again
    /// once some are answered.
    public var openRequests = 256
    public var openRequestBytes = 8 << 20
    /// Threads the link may name: 10,000 (each is remembered as that machine's). One more closes the link.
    public var threads = 10_000
    /// The link's share of the journal's size limit (`serve --journal-max-bytes`): a quarter. Beyond it that
    /// machine's oldest relayed messages are pruned, never the home bridge's own.
    public var journalShare = 0.25
    /// Notifications a link's approvals may send to the phones: 10 at once, then one every 6 s (10 a minute);
    /// beyond, an approval still reaches the phones' screens, without a notification.
    public var notificationBurst = 10
    public var notificationInterval: Duration = .seconds(6)
    /// How long a link closed for a problem stays closed before it is tried again: 30 s (the reason shows meanwhile).
    public var pauseAfterProblem: Duration = .seconds(30)

    public init() {}

    /// The defaults.
    public static let standard = LinkBudget()
}
