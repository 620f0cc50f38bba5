import BridgeProtocol
import Synchronization

/// What a `helloAck` tells a new session about the hub, readable from any thread without waiting for the hub
/// (a connection's event loop builds the ack from it): the hub stores its `lastSeq` here on every change, and
/// the policy is fixed for the hub's life.
///
/// A snapshot is enough for a session that restores nothing: it is subscribed to no thread until it asks, and
/// its `subscribe {afterSeq}` replays from the journal whatever was published after the snapshot.
package final class HelloFacts: Sendable {
    private let seq: Atomic<Int64>
    /// What clients may choose (`helloAck.policy`).
    package let policy: ClientPolicy

    package init(lastSeq: Int64, policy: ClientPolicy) {
        self.seq = Atomic(lastSeq)
        self.policy = policy
    }

    /// The highest seq numbered so far.
    package var lastSeq: Int64 { seq.load(ordering: .acquiring) }

    /// The hub numbered a message.
    package func update(lastSeq: Int64) {
        seq.store(lastSeq, ordering: .releasing)
    }
}
