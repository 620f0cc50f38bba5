import BridgeProtocol
import BridgeStore

/// The hub's numbered stream, as a value type with no I/O: who gets a seq, which messages wait for their
/// batch's journal transaction, who receives which frame (``FanOut``), the frame tail of relayed deltas
/// (``RelayFrame``) and whose outbox to let drain (``DeliveryPacing``).
///
/// The hub asks it what to do and does it: journal the ``Written/entries`` first, then apply the
/// ``Written/actions``, in the same actor step, so a subscription whose seam is ``lastSeq`` sees every later
/// message live and every earlier one in the journal.
struct EventCore {
    /// What the hub must do for messages that are ready: write `entries` to the journal in one transaction,
    /// then apply `actions`.
    struct Written {
        var entries: [JournalEntry]
        var actions: [FanOut.Action]
    }

    /// Messages published while a batch of Codex events is processed, journaled together (each entry's text is
    /// its frame: kept once, not beside it).
    private struct Batch {
        var entries: [JournalEntry] = []
    }

    /// The last seq given out (or journaled by an earlier run).
    private(set) var lastSeq: Int64
    /// Subscriptions and replay holds.
    var fanOut: FanOut
    /// The frame tail of the last relayed delta, and the thread it belongs to.
    var relayFrame = RelayFrame()
    /// Sessions that got live frames since the hub last paced delivery.
    private(set) var pacing = DeliveryPacing()
    private var batch: Batch?

    init(lastSeq: Int64, maxHeldFrames: Int, maxHeldBytes: Int = .max) {
        self.lastSeq = lastSeq
        self.fanOut = FanOut(maxHeldFrames: maxHeldFrames, maxHeldBytes: maxHeldBytes)
    }

    /// The next seq.
    mutating func nextSeq() -> Int64 {
        lastSeq += 1
        return lastSeq
    }

    /// Whether messages wait for ``endBatch()`` instead of being written one by one.
    var isBatching: Bool { batch != nil }

    /// From here to ``endBatch()`` messages are collected, journaled in one transaction and then delivered.
    mutating func beginBatch() {
        batch = Batch()
    }

    /// A numbered message (its entry's text is the frame, sent to the entry's thread): nil while batching (it
    /// waits for ``endBatch()``), else what to write and deliver now. Taken, not copied: on a flood of deltas
    /// each copy of an entry was a retain and a release of each of its strings.
    /// A message relayed from a linked machine (its entry names the machine) goes to fleet sessions only.
    mutating func publish(_ entry: consuming JournalEntry) -> Written? {
        if batch != nil {
            batch?.entries.append(entry)
            return nil
        }
        var actions: [FanOut.Action] = []
        fanOut.publish(entry.text, threadId: entry.threadId, relayed: entry.machine != nil, into: &actions)
        return Written(entries: [entry], actions: actions)
    }

    /// Ends the batch: its entries for one journal transaction, and one list of actions for all its frames (a
    /// session whose outbox refuses a frame gets no more of it).
    mutating func endBatch() -> Written? {
        guard let pending = batch else { return nil }
        batch = nil
        var actions: [FanOut.Action] = []
        actions.reserveCapacity(pending.entries.count)
        for index in pending.entries.indices {
            fanOut.publish(
                pending.entries[index].text, threadId: pending.entries[index].threadId, relayed: pending.entries[index].machine != nil,
                into: &actions)
        }
        return Written(entries: pending.entries, actions: actions)
    }

    /// A frame was queued for `session` (its outbox may need time to drain).
    mutating func delivered(to session: UInt64) {
        pacing.note(session)
    }

    /// The sessions that got frames since the last call.
    mutating func takePaced() -> Set<UInt64> {
        pacing.take()
    }

    /// Whether every message after `cursor` can be replayed, given the journal's pruned-through seq.
    func resumeStatus(after cursor: Int64, prunedThrough: Int64) -> ResumeStatus {
        if cursor > lastSeq { return .gap }  // a cursor from another bridge or a reset database
        return cursor >= prunedThrough ? .ok : .gap
    }
}
