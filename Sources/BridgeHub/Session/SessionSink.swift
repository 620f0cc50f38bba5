/// Where a session's frames go: the connection's bounded queue, as the hub sees it. The hub writes encoded
/// text frames and paces itself on the queue's length; how frames reach the socket (and closes, pings, the
/// event loop) is the connection's business (BridgeServer's `Outbox`).
package protocol SessionSink: Sendable {
    /// The most text frames that may wait.
    var capacity: Int { get }
    /// Text frames waiting to be written.
    var count: Int { get }
    /// Queues text frames in order; on overflow the ones that fit are queued and the rest dropped.
    func enqueue(contentsOf texts: [String]) -> SinkResult
    /// Waits until at most `frames` text frames wait, the sink is finished, or the task is cancelled.
    func waitUntilQueued(atMost frames: Int) async
}

/// What became of frames handed to a ``SessionSink``.
package enum SinkResult: Equatable, Sendable {
    case enqueued
    /// The queue was full: the connection must be closed as a slow reader.
    case overflow
    /// The connection is closing or gone.
    case closed
}
