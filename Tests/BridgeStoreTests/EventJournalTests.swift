import BridgeStore
import Foundation
import GRDB
import Logging
import Testing

@Suite("EventJournal")
struct EventJournalTests {
    private func entry(
        _ seq: Int64, thread: String = "t1", type: String = "item/agentMessage/delta", turn: String? = "u1", at: Date = Date(),
        bytes: Int = 40
    ) -> JournalEntry {
        JournalEntry(
            seq: seq, threadId: thread, kind: "event", type: type, turnId: turn, text: String(repeating: "x", count: bytes), createdAt: at)
    }

    private func open(_ state: TemporaryState, clock: TestClock? = nil) throws -> EventJournal {
        let logger = CapturedLogs().logger
        let database = try BridgeDatabase(paths: state.paths, logger: logger)
        if let clock { return EventJournal(database: database, now: { clock.now }, logger: logger) }
        return EventJournal(database: database, logger: logger)
    }

    /// What the journal table holds, read with SQL beside the journal (which has no such query: the bridge
    /// only replays frames).
    private struct Table {
        let database: BridgeDatabase

        init(_ state: TemporaryState) throws { database = try BridgeDatabase(paths: state.paths, logger: CapturedLogs().logger) }

        func entries() throws -> [JournalEntry] {
            try database.pool.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM journal ORDER BY seq").map { row in
                    JournalEntry(
                        seq: row["seq"], threadId: row["threadId"], kind: row["kind"], type: row["type"], turnId: row["turnId"],
                        approvalId: row["approvalId"], text: row["text"], createdAt: Date(timeIntervalSince1970: row["createdAt"]))
                }
            }
        }

        func oldestSeq() throws -> Int64? {
            try database.pool.read { db in try Int64.fetchOne(db, sql: "SELECT MIN(seq) FROM journal") }
        }

        func totalBytes() throws -> Int64 {
            try database.pool.read { db in try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(bytes), 0) FROM journal") ?? 0 }
        }
    }

    @Test func storesEveryFieldExactly() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let journal = try open(state)
        let at = Date(timeIntervalSince1970: 1_700_000_000.25)
        let entries = [
            JournalEntry(seq: 1, threadId: "t", kind: "event", type: "", turnId: nil, text: "", createdAt: at),
            JournalEntry(
                seq: 2, threadId: "t", kind: "approvalRequest", turnId: "u", approvalId: "ap-1", text: #"{"é":"\u0000 ✓"}"#, createdAt: at),
        ]
        try journal.append(contentsOf: entries)
        #expect(try Table(state).entries() == entries)
        // A failed insert rolls back the whole batch and leaves the statement usable.
        #expect(throws: (any Error).self) { try journal.append(contentsOf: [entry(3), entry(2)]) }
        try journal.append(contentsOf: [entry(3)])
        #expect(try Table(state).entries().map(\.seq) == [1, 2, 3])
    }

    @Test func aLargeBatchGoesInManyRowsPerStatementWithEveryFieldExact() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let journal = try open(state)
        let at = Date(timeIntervalSince1970: 1_700_000_000.5)
        // Two full multi-row statements (EventJournal.rowsPerInsert = 32) and a rest of single rows, with every
        // column varying.
        let perStatement = 32
        let count = 2 * perStatement + 11
        var entries: [JournalEntry] = []
        for seq in 1...count {
            let kind = seq % 5 == 0 ? "approvalRequest" : "event"
            let type: String? = seq % 4 == 0 ? nil : "item/agentMessage/delta"
            let turnId: String? = seq % 2 == 0 ? "u\(seq)" : nil
            let approvalId: String? = seq % 5 == 0 ? "ap-\(seq)" : nil
            entries.append(
                JournalEntry(
                    seq: Int64(seq), threadId: "t\(seq % 3)", kind: kind, type: type, turnId: turnId, approvalId: approvalId,
                    text: #"{"n":\#(seq),"é":"✓"}"#, createdAt: at.addingTimeInterval(Double(seq))))
        }
        try journal.append(contentsOf: entries)
        #expect(try Table(state).entries() == entries)
        let bytes = entries.reduce(0) { $0 + $1.text.utf8.count }
        #expect(try Table(state).totalBytes() == Int64(bytes))
        // A duplicate inside a multi-row statement rolls the whole batch back; the statements stay usable.
        let more = [entry(Int64(count + 1)), entry(5)] + (count + 2...count + perStatement).map { entry(Int64($0)) }
        #expect(throws: (any Error).self) { try journal.append(contentsOf: more) }
        #expect(try Table(state).entries().count == count)
        let rest = (count + 1...count + perStatement + 1).map { entry(Int64($0)) }
        try journal.append(contentsOf: rest)
        let expected = (1...count + perStatement + 1).map { Int64($0) }
        #expect(try Table(state).entries().map(\.seq) == expected)
    }

    @Test func appendsReadInOrderAndSurviveReopen() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        do {
            let journal = try open(state)
            #expect(try journal.lastSeq() == 0)
            #expect(try Table(state).oldestSeq() == nil)
            for seq in Int64(1)...10 { try journal.append(entry(seq, thread: seq % 2 == 0 ? "even" : "odd")) }
            #expect(throws: (any Error).self) { try journal.append(entry(5)) }  // a seq is written once
        }
        let journal = try open(state)
        #expect(try journal.lastSeq() == 10)
        #expect(try Table(state).oldestSeq() == 1)
        #expect(try await journal.readFrames(after: 0, limit: 100).map(\.seq) == Array(1...10))
        #expect(try await journal.readFrames(after: 3, through: 8, limit: 100).map(\.seq) == [4, 5, 6, 7, 8])
        #expect(try await journal.readFrames(after: 0, threads: ["even"], limit: 3).map(\.seq) == [2, 4, 6])
        #expect(try await journal.readFrames(after: 0, threads: [], limit: 3).isEmpty)
        #expect(try await journal.readFrames(after: 0, threads: ["odd", "even"], limit: 100).count == 10)
        let frames = try await journal.readFrames(after: 3, threads: ["even"], limit: 2)
        #expect(frames.map(\.seq) == [4, 6])
        #expect(frames.map(\.text) == (try Table(state).entries()).filter { [4, 6].contains($0.seq) }.map(\.text))
        #expect(try await journal.readFrames(after: 0, threads: [], limit: 3).isEmpty)
    }

    @Test func openTurnsAndApprovals() throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let journal = try open(state)
        try journal.append(contentsOf: [
            entry(1, thread: "a", type: "turn/started", turn: "a1"),
            entry(2, thread: "a", type: "turn/completed", turn: "a1"),
            entry(3, thread: "b", type: "turn/started", turn: "b1"),
            entry(4, thread: "c", type: "turn/started", turn: "c1"),
            entry(5, thread: "c", type: "bridge/turnFailed", turn: "c1"),
            JournalEntry(seq: 6, threadId: "b", kind: "approvalRequest", approvalId: "ap1", text: "{}"),
            JournalEntry(seq: 7, threadId: "b", kind: "approvalRequest", approvalId: "ap2", text: "{}"),
            JournalEntry(seq: 8, threadId: "b", kind: "approvalResolved", approvalId: "ap1", text: "{}"),
        ])
        #expect(try journal.openTurns().map { "\($0.threadId)/\($0.turnId)" } == ["b/b1"])
        #expect(try journal.openApprovals().map(\.approvalId) == ["ap2"])
    }

    @Test func voiceTranscriptsComeWithTheFirstItemTheirThreadStartedAfterThem() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let journal = try open(state)
        func said(_ seq: Int64, _ thread: String = "t1") -> JournalEntry {
            JournalEntry(seq: seq, threadId: thread, kind: "event", type: "bridge/voiceTranscript", text: "said \(seq)")
        }
        func item(_ seq: Int64, _ thread: String = "t1") -> JournalEntry {
            JournalEntry(seq: seq, threadId: thread, kind: "event", type: "item/started", turnId: "u", text: "item \(seq)")
        }
        let far: Int64 = 1010  // past the 1,000 rows the journal looks at
        try journal.append(contentsOf: [
            said(1), entry(2), item(3, "other"), item(4), said(5), said(6), item(7), said(8, "other"), said(9), item(9 + far),
        ])
        let frames = try await journal.voiceFrames(of: "t1", limit: 10)
        #expect(frames.map(\.text) == ["said 1", "said 5", "said 6", "said 9"])
        // Another thread's item is not the next; two parts before one item both name it; none within the window: nil.
        #expect(frames.map(\.nextItem) == ["item 4", "item 7", "item 7", nil])
        #expect(try await journal.voiceFrames(of: "t1", limit: 1).map(\.text) == ["said 9"])
    }

    @Test func relayedMessagesKeepTheirCursorAndStayOutOfRecoveryAndPlainReplays() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let journal = try open(state)
        try journal.append(contentsOf: [
            entry(1, thread: "home", type: "turn/completed", turn: "h1"),
            JournalEntry(
                seq: 2, threadId: "far", kind: "event", type: "turn/started", turnId: "f1", text: "{}", machine: "b", remoteSeq: 40),
            JournalEntry(seq: 3, threadId: "far", kind: "approvalRequest", approvalId: "ap-b", text: "{}", machine: "b", remoteSeq: 41),
            JournalEntry(
                seq: 4, threadId: "other", kind: "event", type: "turn/started", turnId: "o1", text: "{}", machine: "c", remoteSeq: 7),
        ])
        #expect(try journal.relayCursor(machine: "b") == 41)
        #expect(try journal.relayCursor(machine: "c") == 7)
        #expect(try journal.relayCursor(machine: "d") == nil)
        // Another machine's open turn or approval is its own business, not this bridge's to close at startup.
        #expect(try journal.openTurns().isEmpty)
        #expect(try journal.openApprovals().isEmpty)
        #expect(try await journal.readFrames(after: 0, relayed: false, limit: 10).map(\.seq) == [1])
        #expect(try await journal.readFrames(after: 0, limit: 10).map(\.seq) == [1, 2, 3, 4])
    }

    @Test func pruningByAgeKeepsLastSeqAndRecordsTheCut() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let clock = TestClock()
        let journal = try open(state, clock: clock)
        for seq in Int64(1)...5 { try journal.append(entry(seq, at: clock.now.addingTimeInterval(-100))) }
        for seq in Int64(6)...8 { try journal.append(entry(seq, at: clock.now)) }
        let result = try await journal.prune(maxAge: 50, maxBytes: 1 << 30)
        #expect(result.deleted == 5 && result.prunedThrough == 5)
        #expect(try Table(state).oldestSeq() == 6)
        #expect(try journal.prunedThrough() == 5)
        clock.advance(by: 100)
        #expect(try await journal.prune(maxAge: 50, maxBytes: 1 << 30).deleted == 3)
        #expect(try Table(state).oldestSeq() == nil)
        #expect(try journal.lastSeq() == 8)  // an empty journal still continues after 8
        #expect(try journal.prunedThrough() == 8)
    }

    @Test func pruningBySizeDropsTheOldestBeyondTheBudget() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let journal = try open(state)
        for seq in Int64(1)...20_000 { try journal.append(entry(seq, bytes: 100)) }
        #expect(try Table(state).totalBytes() == 2_000_000)
        let result = try await journal.prune(maxAge: 3600, maxBytes: 550_000)
        #expect(result.prunedThrough == 14_500)  // 5,500 entries of 100 bytes fit
        #expect(try Table(state).totalBytes() == 550_000)
        #expect(try Table(state).oldestSeq() == 14_501)
        #expect(try await journal.prune(maxAge: 3600, maxBytes: 550_000).deleted == 0)
    }

    @Test func appendRate() throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let journal = try open(state)
        let count = 5000
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            for seq in 1...count { try journal.append(entry(Int64(seq), bytes: 200)) }
        }
        let perSecond = Double(count) / (Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))
        print("EventJournal: \(Int(perSecond)) single-row appends/s")
        #expect(perSecond > 1000)
    }
}

@Suite("ClientMemory")
struct ClientMemoryTests {
    /// A device's handshake restores its subscriptions from memory, not SQLite (P1); the memory's own writes are
    /// read again.
    @Test func subscriptionsAreReadOnceAndAfterEachWrite() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let database = try BridgeDatabase(paths: state.paths, logger: CapturedLogs().logger)
        let memory = ClientMemory(database: database)
        try await memory.subscribe("dev", to: "t1")
        #expect(try await memory.subscriptions(of: "dev") == ["t1"])
        try await database.pool.write { db in try db.execute(sql: "DELETE FROM deviceSubscription") }
        #expect(try await memory.subscriptions(of: "dev") == ["t1"])  // from memory: the table was not read
        try await memory.subscribe("dev", to: "t2")
        #expect(try await memory.subscriptions(of: "dev") == ["t2"])  // read again after a write of its own
    }

    @Test func subscriptionsAndAnswers() async throws {
        let state = try TemporaryState()
        defer { state.cleanup() }
        let clock = TestClock()
        let memory = ClientMemory(database: try BridgeDatabase(paths: state.paths, logger: CapturedLogs().logger), now: { clock.now })
        #expect(ClientMemory.key(deviceId: "dev", clientId: "x") == "dev")
        #expect(ClientMemory.key(deviceId: nil, clientId: "x") == "client:x")
        #expect(ClientMemory.key(deviceId: nil, clientId: "") == nil)
        try await memory.subscribe("dev", to: "t1")
        clock.advance(by: 1)
        try await memory.subscribe("dev", to: "*")
        try await memory.subscribe("dev", to: "t1")
        #expect(try await memory.subscriptions(of: "dev") == ["t1", "*"])
        try await memory.unsubscribe("dev", from: "t1")
        #expect(try await memory.subscriptions(of: "dev") == ["*"])
        #expect(try await memory.subscriptions(of: "other").isEmpty)

        try await memory.storeAnswer("{\"kind\":\"accepted\"}", kind: "approve", to: "r1", from: "dev")
        #expect(try await memory.answer(to: "r1", from: "dev", maxAge: 600)?.answer == "{\"kind\":\"accepted\"}")
        #expect(try await memory.answer(to: "r1", from: "other", maxAge: 600) == nil)
        clock.advance(by: 601)
        #expect(try await memory.answer(to: "r1", from: "dev", maxAge: 600) == nil)
        #expect(try await memory.pruneAnswers(maxAge: 600) == 1)
    }
}
