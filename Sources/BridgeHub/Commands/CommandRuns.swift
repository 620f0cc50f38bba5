import BridgeProtocol

/// The `!commands` phones run (`runCommand`), while they run: which thread each belongs to, whether a stop was
/// asked for, and their output on its way to the journal. A value type the hub keeps; no I/O.
///
/// Output arrives from Codex in pieces of any size, split anywhere (even inside a UTF-8 sequence). It is collected
/// and handed out as text in larger pieces (``take(_:)``), never splitting a character, and only up to the cap: a
/// chatty command cannot fill the journal.
struct CommandRuns: Sendable {
    struct Run: Sendable {
        var threadId: String
        var stopRequested = false
        var timedOut = false
        /// Bytes received and not yet handed out.
        var pending: [UInt8] = []
        /// Bytes handed out (or dropped past the cap) so far.
        var consumed = 0
        var truncated = false
        /// Whether a flush of `pending` is already scheduled.
        var flushScheduled = false
    }

    /// Most commands running at once on one thread, and on the bridge.
    static let maxPerThread = 3
    static let maxRunning = 16
    /// Most output kept per run (the rest is dropped and the exit says `truncated`).
    static let outputCap = 1 << 20
    /// A pending piece this large is handed out at once, without waiting for the flush.
    static let flushBytes = 16 << 10

    private(set) var runs: [String: Run] = [:]

    func running(on threadId: String) -> Int { runs.values.filter { $0.threadId == threadId }.count }

    var count: Int { runs.count }

    func run(_ runId: String) -> Run? { runs[runId] }

    mutating func start(_ runId: String, threadId: String) { runs[runId] = Run(threadId: threadId) }

    mutating func update(_ runId: String, _ change: (inout Run) -> Void) {
        guard var run = runs[runId] else { return }
        change(&run)
        runs[runId] = run
    }

    /// Adds output; → whether enough is pending to hand out now.
    mutating func append(_ runId: String, _ bytes: [UInt8], capReached: Bool) -> Bool {
        guard var run = runs[runId] else { return false }
        let room = max(0, Self.outputCap - run.consumed - run.pending.count)
        run.pending += bytes.prefix(room)
        if bytes.count > room || capReached { run.truncated = true }
        runs[runId] = run
        return run.pending.count >= Self.flushBytes
    }

    /// The pending output that forms whole characters (all of it when `final`), as text; nil when there is none.
    mutating func take(_ runId: String, final: Bool = false) -> String? {
        guard var run = runs[runId], !run.pending.isEmpty else { return nil }
        let length = final ? run.pending.count : Self.completeUTF8Prefix(run.pending)
        guard length > 0 else { return nil }
        let text = String(decoding: run.pending.prefix(length), as: UTF8.self)
        run.pending.removeFirst(length)
        run.consumed += length
        runs[runId] = run
        return text
    }

    /// Ends a run; → what it was (nil when unknown).
    mutating func finish(_ runId: String) -> Run? { runs.removeValue(forKey: runId) }

    /// The length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence.
    static func completeUTF8Prefix(_ bytes: [UInt8]) -> Int {
        var index = bytes.count - 1
        var continuation = 0
        while index >= 0, continuation < 3, bytes[index] & 0xC0 == 0x80 {
            continuation += 1
            index -= 1
        }
        guard index >= 0 else { return bytes.count }
        let lead = bytes[index]
        let needed =
            switch lead {
            case 0xC0...0xDF: 1
            case 0xE0...0xEF: 2
            case 0xF0...0xF7: 3
            default: 0
            }
        // A lead byte whose sequence is not complete yet: keep it (and its continuation bytes) for later.
        return needed > continuation ? index : bytes.count
    }
}
