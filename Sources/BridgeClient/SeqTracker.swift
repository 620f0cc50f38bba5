/// The client's resume cursor and duplicate filter for journaled messages (`event`, `approvalRequest`,
/// `approvalResolved`).
///
/// After a reconnect the bridge replays from the cursor; re-subscribing with `afterSeq` can replay messages
/// that were already seen live, and replays of several subscriptions can interleave, so duplicates are
/// recognised by seq (a window of recent ones) rather than by "below the highest".
public struct SeqTracker: Sendable, Hashable {
    /// The highest seq seen or adopted from a `helloAck`: what `hello.resume.lastSeq` carries.
    public private(set) var cursor: Int64?
    private var recent: Set<Int64> = []
    private let window: Int

    public init(cursor: Int64? = nil, window: Int = 8192) {
        self.cursor = cursor
        self.window = window
    }

    /// Records `seq`; false when it was already delivered, or is negative (no bridge sends one: it is refused
    /// rather than moving the cursor).
    public mutating func accept(_ seq: Int64) -> Bool {
        guard seq >= 0, recent.insert(seq).inserted else { return false }
        if seq > (cursor ?? Int64.min) { cursor = seq }
        if recent.count > window, let cursor {
            let floor = cursor - Int64(window / 2)
            recent = recent.filter { $0 > floor }
        }
        return true
    }

    /// Starts from the bridge's `helloAck.lastSeq` when nothing was seen yet, so a reconnect resumes from the
    /// moment of the first connection rather than replaying the whole journal.
    public mutating func adopt(serverLastSeq: Int64?) {
        guard cursor == nil, let serverLastSeq, serverLastSeq >= 0 else { return }
        cursor = serverLastSeq
    }

    /// After a `gap`: nothing before `lastSeq` will be replayed; continue from there.
    public mutating func restart(at lastSeq: Int64?) {
        cursor = lastSeq.flatMap { $0 >= 0 ? $0 : nil }
        recent.removeAll()
    }
}
