/// Who is looking: each session's owner (device id or `client:<clientId>`) and whether its page is visible.
/// Decides, per owner, whether a notice is pushed now, after the delay, or not at all.
///
/// A session counts as visible until it says otherwise (`presence {visible:false}`); one that stopped reading
/// (its queue backs up) counts as away.
struct PushPresence: Sendable {
    enum Verdict: Equatable {
        /// A page of this owner is on screen: no push.
        case skip
        /// Connected but hidden: push after the delay unless seen or answered meanwhile.
        case later
        /// Not connected: push now.
        case now
    }

    private struct Entry {
        var owner: String
        var visible: Bool
    }

    private var sessions: [UInt64: Entry] = [:]
    /// Per owner, how often one of its pages came on screen (opened, or became visible): a delayed push is
    /// dropped when this changed meanwhile (the device saw the event), even if it is hidden again.
    private var looks: [String: Int] = [:]

    mutating func opened(_ session: UInt64, owner: String) {
        sessions[session] = Entry(owner: owner, visible: true)
        looks[owner, default: 0] += 1
    }

    mutating func visibility(_ session: UInt64, visible: Bool) {
        guard let owner = sessions[session]?.owner else { return }
        if visible, sessions[session]?.visible == false { looks[owner, default: 0] += 1 }
        sessions[session]?.visible = visible
    }

    /// How often a page of `owner` came on screen so far (compare before and after a delay).
    func looks(of owner: String) -> Int { looks[owner] ?? 0 }

    mutating func closed(_ session: UInt64) {
        sessions[session] = nil
    }

    /// The owner of a session, while it is open.
    func owner(of session: UInt64) -> String? { sessions[session]?.owner }

    /// What to do for `owner`; `stalled` says whether a session stopped reading.
    func verdict(for owner: String, stalled: (UInt64) -> Bool = { _ in false }) -> Verdict {
        var connected = false
        for (id, entry) in sessions where entry.owner == owner {
            if stalled(id) { continue }
            if entry.visible { return .skip }
            connected = true
        }
        return connected ? .later : .now
    }

    /// Whether any live session is visible (ntfy and webhooks wait the delay then).
    func anyVisible(stalled: (UInt64) -> Bool = { _ in false }) -> Bool {
        sessions.contains { !stalled($0.key) && $0.value.visible }
    }
}
