/// Who receives which live frame: each session's subscriptions (thread ids, or `"*"` for every thread) and
/// its holds, which keep its live frames back while the journal is replayed to it (so a replayed event and a
/// live one are never out of order or doubled).
///
/// A value type with no I/O: the hub applies the ``Action``s it returns. Removing a session is one call.
struct FanOut {
    /// What the hub must do.
    enum Action: Equatable {
        /// Queue this frame on the session's outbox.
        case send(String, to: UInt64)
        /// The session's held frames passed ``maxHeldFrames`` or ``maxHeldBytes``: close it as a slow reader (its
        /// hold and frames are dropped already).
        case closeSlowReader(UInt64)
    }

    /// One session's part.
    struct Route: Equatable {
        var threads: Set<String> = []
        var everyThread = false
        /// Nested holds; frames are held while it is above zero.
        var holds = 0
        var held: [String] = []
        var heldBytes = 0
    }

    /// The most live frames held back for one session during its replay.
    let maxHeldFrames: Int
    /// The most bytes of them (a linked machine's frames may be large: issue 44).
    let maxHeldBytes: Int
    private(set) var routes: [UInt64: Route] = [:]
    /// Thread id → sessions subscribed to it by name (not through `"*"`).
    private var byThread: [String: Set<UInt64>] = [:]
    private var everyThread: Set<UInt64> = []
    /// Sessions that asked for the fleet (`hello.fleet`): the only ones that get frames relayed from linked machines.
    private var fleet: Set<UInt64> = []

    init(maxHeldFrames: Int, maxHeldBytes: Int = .max) {
        self.maxHeldFrames = maxHeldFrames
        self.maxHeldBytes = maxHeldBytes
    }

    // MARK: Subscriptions

    /// Whether `session` receives `threadId`'s frames (by name or through `"*"`); `"*"` asks for the wildcard.
    func covers(_ session: UInt64, _ threadId: String) -> Bool {
        guard let route = routes[session] else { return false }
        return route.everyThread || (threadId != "*" && route.threads.contains(threadId))
    }

    /// The threads `session` subscribed to by name.
    func threads(of session: UInt64) -> Set<String> { routes[session]?.threads ?? [] }

    /// How many threads `session` subscribed to by name.
    func subscriptionCount(_ session: UInt64) -> Int { routes[session]?.threads.count ?? 0 }

    /// Subscribes; returns whether the session was not covered for `threadId` before.
    @discardableResult
    mutating func subscribe(_ session: UInt64, to threadId: String) -> Bool {
        let wasCovered = covers(session, threadId)
        if threadId == "*" {
            routes[session, default: Route()].everyThread = true
            everyThread.insert(session)
        } else {
            routes[session, default: Route()].threads.insert(threadId)
            byThread[threadId, default: []].insert(session)
        }
        return !wasCovered
    }

    mutating func unsubscribe(_ session: UInt64, from threadId: String) {
        if threadId == "*" {
            routes[session]?.everyThread = false
            everyThread.remove(session)
        } else {
            routes[session]?.threads.remove(threadId)
            byThread[threadId]?.remove(session)
            if byThread[threadId]?.isEmpty == true { byThread[threadId] = nil }
        }
    }

    /// The session asked for the fleet: it gets frames relayed from linked machines too.
    mutating func joinFleet(_ session: UInt64) {
        fleet.insert(session)
    }

    /// Whether the session asked for the fleet.
    func isFleet(_ session: UInt64) -> Bool { fleet.contains(session) }

    /// Forgets the session: its subscriptions, holds and held frames.
    mutating func remove(_ session: UInt64) {
        fleet.remove(session)
        guard let route = routes.removeValue(forKey: session) else { return }
        everyThread.remove(session)
        for threadId in route.threads {
            byThread[threadId]?.remove(session)
            if byThread[threadId]?.isEmpty == true { byThread[threadId] = nil }
        }
    }

    // MARK: Delivery

    /// A live frame of `threadId` for every session that covers it.
    mutating func publish(_ text: String, threadId: String) -> [Action] {
        var actions: [Action] = []
        publish(text, threadId: threadId, into: &actions)
        return actions
    }

    /// The same, appended to `actions` (a batch of frames collects its actions in one array). A frame relayed
    /// from a linked machine goes to fleet sessions only.
    mutating func publish(_ text: String, threadId: String, relayed: Bool = false, into actions: inout [Action]) {
        let named = byThread[threadId]
        if relayed {
            var targets = everyThread.intersection(fleet)
            if let named { targets.formUnion(named.intersection(fleet)) }
            for session in targets.sorted() { deliver(text, to: session, into: &actions) }
            return
        }
        // One subscriber (the usual case): no set union, no sort.
        if everyThread.isEmpty, let named, named.count == 1, let only = named.first {
            deliver(text, to: only, into: &actions)
            return
        }
        if named == nil, everyThread.count == 1, let only = everyThread.first {
            deliver(text, to: only, into: &actions)
            return
        }
        var targets = everyThread
        if let named { targets.formUnion(named) }
        for session in targets.sorted() { deliver(text, to: session, into: &actions) }
    }

    /// A live frame for one session: sent now, or held while the session is held.
    mutating func deliver(_ text: String, to session: UInt64) -> [Action] {
        var actions: [Action] = []
        deliver(text, to: session, into: &actions)
        return actions
    }

    private mutating func deliver(_ text: String, to session: UInt64, into actions: inout [Action]) {
        guard let route = routes[session], route.holds > 0 else {
            actions.append(.send(text, to: session))
            return
        }
        let bytes = text.utf8.count
        guard route.held.count < maxHeldFrames, route.held.isEmpty || route.heldBytes + bytes <= maxHeldBytes else {
            routes[session]?.holds = 0
            routes[session]?.held = []
            routes[session]?.heldBytes = 0
            actions.append(.closeSlowReader(session))
            return
        }
        routes[session]?.held.append(text)
        routes[session]?.heldBytes += bytes
    }

    /// Holds the session's live frames until the matching ``release(_:)``.
    mutating func hold(_ session: UInt64) {
        routes[session, default: Route()].holds += 1
    }

    /// Ends one hold; the last one sends what was held, in order. A hold already dropped (slow reader) is a no-op.
    mutating func release(_ session: UInt64) -> [Action] {
        guard let route = routes[session], route.holds > 0 else { return [] }
        routes[session]?.holds -= 1
        guard route.holds == 1 else { return [] }
        routes[session]?.held = []
        routes[session]?.heldBytes = 0
        return route.held.map { .send($0, to: session) }
    }
}
