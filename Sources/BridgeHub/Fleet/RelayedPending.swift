/// The approvals and questions of linked machines that nobody answered yet, as this bridge relayed them (its own
/// frames, labelled): a fleet session that subscribes later gets them, as it gets this bridge's own pending ones
/// from the desks. A value type with no I/O.
struct RelayedPending {
    private struct Entry {
        var threadId: String
        var machine: String
        var text: String
        var order: Int64
    }

    private var entries: [String: Entry] = [:]

    /// Most kept (a linked machine cannot grow this bridge's memory without bound); the oldest go first.
    static let capacity = 10_000

    /// An approval or question (`id`) was relayed.
    mutating func opened(_ id: String, threadId: String, machine: String, text: String, seq: Int64) {
        entries[machine + "\u{0}" + id] = Entry(threadId: threadId, machine: machine, text: text, order: seq)
        if entries.count > Self.capacity, let oldest = entries.min(by: { $0.value.order < $1.value.order })?.key {
            entries[oldest] = nil
        }
    }

    /// It was answered, withdrawn or cancelled.
    mutating func closed(_ id: String, machine: String) {
        entries[machine + "\u{0}" + id] = nil
    }

    /// The machine was unlinked.
    mutating func forget(machine: String) {
        entries = entries.filter { $0.value.machine != machine }
    }

    /// The frames of `threadId` (or of every thread for `*`), oldest first.
    func frames(on threadId: String) -> [String] {
        entries.values.filter { threadId == "*" || $0.threadId == threadId }.sorted { $0.order < $1.order }.map(\.text)
    }
}
