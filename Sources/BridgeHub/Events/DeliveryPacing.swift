/// Which sessions got live frames since the hub last looked, so it can let their outboxes drain before it takes
/// more from Codex.
///
/// Codex can write faster than a connection's event loop gets to write (a flood on a busy machine: the reader,
/// the hub and the event loop share the cores). Without a pause the outbox of a client that reads at full
/// speed fills up and the client is closed as a slow reader (1013). So after each batch the hub waits, at most
/// ``limit``, while such an outbox is more than half full, until it is down to a quarter; Codex waits on its
/// pipe meanwhile. A client that does not read still overflows its outbox and is closed, as before, after a
/// few such pauses.
struct DeliveryPacing {
    /// The longest pause after one batch.
    static let limit = Duration.milliseconds(20)
    /// The longest pause after a batch relayed from a linked machine: longer, since holding a link back is cheap
    /// (that machine keeps the messages in its journal, and the link resumes from its cursor should it be
    /// dropped) while dropping a phone that reads is not.
    static let relayLimit = Duration.milliseconds(500)

    private(set) var targets: Set<UInt64> = []
    private var last: UInt64?

    /// A frame was queued for `session`.
    mutating func note(_ session: UInt64) {
        guard session != last else { return }
        last = session
        targets.insert(session)
    }

    /// The sessions noted since the last call.
    mutating func take() -> Set<UInt64> {
        defer {
            targets.removeAll(keepingCapacity: true)
            last = nil
        }
        return targets
    }
}
