/// A session's replays run one after another (a subscription's replay waits for the one its hello asked for):
/// which sessions replay now and which replays wait behind theirs, without a task per replay. `Waiter` is what
/// resumes a waiting replay (the hub's: a continuation).
struct ReplayLine<Waiter> {
    /// Sessions replaying now, with the replays waiting behind theirs (in order).
    private var waiting: [UInt64: [Waiter]] = [:]

    /// Whether session `id` may replay now (it then holds the line until ``end(_:)``); if not, ``wait(_:_:)``.
    mutating func begin(_ id: UInt64) -> Bool {
        guard waiting[id] == nil else { return false }
        waiting[id] = []
        return true
    }

    /// Queues a replay behind the one running for `id`; ``end(_:)`` hands it the line when its turn comes.
    mutating func wait(_ id: UInt64, _ waiter: Waiter) {
        waiting[id, default: []].append(waiter)
    }

    /// The replay of `id` ended: the next one waiting (to resume; it holds the line now), or nil (the line is free).
    mutating func end(_ id: UInt64) -> Waiter? {
        guard var queue = waiting[id], !queue.isEmpty else {
            waiting[id] = nil
            return nil
        }
        let next = queue.removeFirst()
        waiting[id] = queue
        return next
    }
}
