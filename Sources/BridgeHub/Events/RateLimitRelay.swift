import BridgeProtocol

/// Codex's `account/rateLimits/updated` names no thread: the hub relays it as an event with `threadId` `"*"`,
/// which reaches the sessions subscribed to `*` (and a `*` replay from the journal), never a single thread's.
/// Codex sends a snapshot after every model response, most often the same one again: only a changed snapshot
/// is relayed (and journaled).
struct RateLimitRelay: Sendable {
    /// The `threadId` of the relayed event: every thread, i.e. only `*` subscribers.
    static let threadId = "*"

    /// The last snapshot relayed, as Codex wrote it.
    private var last: JSONValue?

    /// Whether `params` differ from the last snapshot relayed (and so go out); remembers them.
    mutating func admit(_ params: JSONValue) -> Bool {
        guard params != last else { return false }
        last = params
        return true
    }
}
