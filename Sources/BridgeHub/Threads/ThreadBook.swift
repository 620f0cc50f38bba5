import BridgeProtocol
import CodexControl

/// What the hub knows of each thread: its directory, the policy this bridge runs its turns with, its running
/// turn, its last diff, and the Codex generation it is loaded in. A value type with no I/O; every change goes
/// through one of its methods.
///
/// Entries are never removed while the bridge runs (a thread stays known), and "not loaded" is generation -1.
struct ThreadBook {
    struct Entry: Equatable {
        var cwd: String?
        /// The sandbox and approval policy this bridge runs the thread's turns with (nil: not decided yet).
        var policy: TurnPolicy?
        var runningTurnId: String?
        /// The last seq before the running turn's `turn/started`: its journaled events are after it.
        var runningSince: Int64?
        var lastDiff: String?
        /// Codex's last `thread/tokenUsage/updated` `tokenUsage` (for `readThread`).
        var tokenUsage: JSONValue?
        /// The codex generation this thread is loaded in; a restart needs `thread/resume` first.
        var loadedGeneration: Int
    }

    /// The generation of a thread that no Codex child has loaded for this bridge.
    static let notLoaded = -1

    private(set) var entries: [String: Entry] = [:]
    /// Threads whose turn was running when the bridge last stopped; resumed once Codex runs.
    private(set) var recovered: Set<String> = []

    init(recovered: Set<String> = []) {
        self.recovered = recovered
        for threadId in recovered { entries[threadId] = Entry(loadedGeneration: Self.notLoaded) }
    }

    subscript(_ threadId: String) -> Entry? { entries[threadId] }

    func runningTurn(of threadId: String) -> String? { entries[threadId]?.runningTurnId }

    /// Refuses what `what` names while a turn runs on `threadId` (`conflict`). Called in the request's thread lane
    /// (``ThreadLanes``), so no turn starts between this check and the act.
    func refuseWhileRunning(_ threadId: String, _ what: String) throws {
        guard runningTurn(of: threadId) == nil else {
            throw HubError(.conflict, "a turn is running on thread \(threadId); \(what) it once the turn has ended")
        }
    }

    /// The running turn and the last seq before its `turn/started` (nil when none runs or the seq is unknown).
    func runningTurnSince(of threadId: String) -> (turnId: String, since: Int64)? {
        guard let entry = entries[threadId], let turnId = entry.runningTurnId, let since = entry.runningSince else { return nil }
        return (turnId, since)
    }

    func isLoaded(_ threadId: String, in generation: Int) -> Bool { entries[threadId]?.loadedGeneration == generation }

    /// How many threads run a turn.
    var runningCount: Int { entries.values.count { $0.runningTurnId != nil } }

    /// The running turns, by thread id.
    var runningTurns: [(threadId: String, turnId: String)] {
        entries.compactMap { key, entry in entry.runningTurnId.map { (key, $0) } }.sorted { $0.threadId < $1.threadId }
    }

    /// Whether the thread is known (seen in this run, or recovered from the journal).
    func knows(_ threadId: String) -> Bool { entries[threadId] != nil }

    /// The thread other than `threadId` whose running turn is `turnId`.
    func owner(ofTurn turnId: String, besides threadId: String) -> String? {
        entries.first { $0.key != threadId && $0.value.runningTurnId == turnId }?.key
    }

    /// The threads loaded in `generation`, with their directories.
    func loaded(in generation: Int) -> [(threadId: String, cwd: String?)] {
        entries.filter { $0.value.loadedGeneration == generation }.map { ($0.key, $0.value.cwd) }
    }

    // MARK: Changes

    /// Makes the thread known (loaded in `generation`) and learns its directory when none is known yet.
    mutating func know(_ threadId: String, cwd: String? = nil, generation: Int) {
        var entry = entries[threadId] ?? Entry(cwd: cwd, loadedGeneration: generation)
        if entry.cwd == nil { entry.cwd = cwd }
        entries[threadId] = entry
    }

    /// The thread was started, forked or resumed by this bridge in `generation`, in `cwd` (nil keeps the one
    /// known), with `policy`.
    mutating func loaded(_ threadId: String, cwd: String?, generation: Int, policy: TurnPolicy?) {
        var entry = entries[threadId] ?? Entry(loadedGeneration: generation)
        entry.loadedGeneration = generation
        if let cwd { entry.cwd = cwd }
        if let policy { entry.policy = policy }
        entries[threadId] = entry
    }

    /// Followed as an observer (shared app-server): loaded in `generation`, nothing else changes.
    mutating func followed(_ threadId: String, generation: Int) {
        entries[threadId]?.loadedGeneration = generation
    }

    /// The policy this bridge runs the thread's turns with (a thread not known yet becomes known, not loaded).
    mutating func setPolicy(_ policy: TurnPolicy, of threadId: String) {
        entries[threadId, default: Entry(loadedGeneration: Self.notLoaded)].policy = policy
    }

    /// A turn event of the thread: `turn/started` and `turn/completed` (a completion without a turn id ends
    /// whatever runs) move the running turn; `turn/diff/updated` keeps the diff, `thread/tokenUsage/updated` the
    /// usage. `since`: the last seq before this event's (where a running turn's journaled events begin).
    mutating func observe(
        _ kind: EventKind, threadId: String, turnId: String?, diff: String? = nil, tokenUsage: JSONValue? = nil, since: Int64? = nil
    ) {
        switch kind {
        case .codex(.turnStarted):
            entries[threadId]?.runningTurnId = turnId
            entries[threadId]?.runningSince = since
        case .codex(.turnCompleted):
            if entries[threadId]?.runningTurnId == turnId || turnId == nil {
                entries[threadId]?.runningTurnId = nil
                entries[threadId]?.runningSince = nil
            }
        case .codex(.turnDiffUpdated): if let diff { entries[threadId]?.lastDiff = diff }
        case .codex(.threadTokenUsageUpdated): if let tokenUsage { entries[threadId]?.tokenUsage = tokenUsage }
        default: break
        }
    }

    /// Codex stopped: no turn runs any more. Returns the turns that were running.
    mutating func stopAll() -> [(threadId: String, turnId: String)] {
        var stopped: [(threadId: String, turnId: String)] = []
        for (threadId, entry) in entries {
            guard let turnId = entry.runningTurnId else { continue }
            entries[threadId]?.runningTurnId = nil
            entries[threadId]?.runningSince = nil
            stopped.append((threadId, turnId))
        }
        return stopped.sorted { $0.threadId < $1.threadId }
    }

    /// The threads of the previous run to resume, once.
    mutating func takeRecovered() -> Set<String> {
        defer { recovered = [] }
        return recovered
    }
}
