/// The highest seq of each linked machine the home bridge journaled: a message at or below it was journaled
/// already and is dropped, so a linked machine's message is journaled once here, whatever hands it to the hub
/// twice (a link replaced while its last batch was still being relayed resumes from the journal's cursor, read
/// before that batch was written; a linked bridge that sends a seq again). Starts from the journal's cursor
/// (what the links resume after), read once per machine per run. A value type; the journal is asked through
/// `journaled`.
struct RelayCursors {
    private var through: [String: Int64] = [:]

    /// Whether `machine`'s message of `remoteSeq` is new; `journaled` reads the journal's cursor the first time.
    mutating func isNew(_ remoteSeq: Int64, machine: String, journaled: () -> Int64?) -> Bool {
        if through[machine] == nil { through[machine] = journaled() ?? 0 }
        return remoteSeq > through[machine] ?? 0
    }

    /// `machine`'s message of `remoteSeq` was journaled.
    mutating func advance(_ remoteSeq: Int64, machine: String) {
        through[machine] = max(through[machine] ?? 0, remoteSeq)
    }

    /// The machine was unlinked: its cursor is the journal's again when it comes back.
    mutating func forget(machine: String) {
        through[machine] = nil
    }
}
