import Foundation
import GRDB
import Logging
import Synchronization

/// What the bridge remembers about a client between its connections: the threads it subscribed to and the
/// first answer to each of its requests (so that a retry after a reconnect is not acted on twice).
///
/// A client is a paired device (its device id) or a shared-secret client that named itself with
/// `hello.clientId` (`client:<clientId>`); see ``ClientMemory/key(deviceId:clientId:)``.
public struct ClientMemory: Sendable {
    /// A stored answer to one request.
    public struct StoredAnswer: Sendable, Hashable {
        /// The request kind it answered (a retry must be the same kind).
        public var kind: String
        /// The answer frame, as JSON.
        public var answer: String
        public var createdAt: Date
    }

    private let database: BridgeDatabase
    private let now: @Sendable () -> Date
    /// The subscriptions read so far, so that a device's handshake does not read SQLite (P1: the read was most of
    /// what a device's handshake cost more than the shared secret's). This memory is their only writer.
    private let remembered = Remembered()

    public init(database: BridgeDatabase, now: @escaping @Sendable () -> Date = Date.init) {
        self.database = database
        self.now = now
    }

    /// The key a client's memory is stored under, or nil when the client cannot be recognised again.
    public static func key(deviceId: String?, clientId: String?) -> String? {
        if let deviceId { return deviceId }
        if let clientId, !clientId.isEmpty, clientId.utf8.count <= 200 { return "client:\(clientId)" }
        return nil
    }

    // MARK: Subscriptions

    /// The threads (or `*`) the client is subscribed to, oldest first.
    public func subscriptions(of client: String) async throws -> [String] {
        let (known, generation) = remembered.state.withLock { ($0.byClient[client], $0.generation) }
        if let known { return known }
        let read = try await database.pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT threadId FROM deviceSubscription WHERE deviceId = ? ORDER BY createdAt, threadId",
                arguments: [client])
        }
        // Kept only when no write came in between (the read may have missed it).
        remembered.state.withLock {
            guard $0.generation == generation else { return }
            if $0.byClient.count >= 4096 { $0.byClient.removeAll() }  // clients named by shared-secret holders
            $0.byClient[client] = read
        }
        return read
    }

    /// Remembers a subscription.
    public func subscribe(_ client: String, to threadId: String) async throws {
        let at = now().timeIntervalSince1970
        defer { forget(client) }
        try await database.pool.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO deviceSubscription (deviceId, threadId, createdAt) VALUES (?, ?, ?)",
                arguments: [client, threadId, at])
        }
    }

    /// Forgets a subscription.
    public func unsubscribe(_ client: String, from threadId: String) async throws {
        defer { forget(client) }
        try await database.pool.write { db in
            try db.execute(sql: "DELETE FROM deviceSubscription WHERE deviceId = ? AND threadId = ?", arguments: [client, threadId])
        }
    }

    /// A write to `client`'s subscriptions: read them again next time, and drop a read that overlapped it.
    private func forget(_ client: String) {
        remembered.state.withLock {
            $0.generation &+= 1
            $0.byClient[client] = nil
        }
    }

    // MARK: Request answers

    /// The stored answer to `requestId` from `client`, if one is younger than `maxAge`.
    /// Records (or forgets) a subscription; a failure is logged, not thrown (the live subscription holds anyway,
    /// only the next connection's restore misses it).
    public func record(_ client: String, subscribedTo threadId: String, _ subscribed: Bool, logger: Logger) async {
        do {
            if subscribed {
                try await subscribe(client, to: threadId)
            } else {
                try await unsubscribe(client, from: threadId)
            }
        } catch {
            logger.warning("Cannot remember a subscription", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
        }
    }

    public func answer(to requestId: String, from client: String, maxAge: TimeInterval) async throws -> StoredAnswer? {
        let cutoff = now().addingTimeInterval(-maxAge).timeIntervalSince1970
        return try await database.pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT kind, answer, createdAt FROM requestAnswer WHERE deviceId = ? AND requestId = ? AND createdAt >= ?",
                arguments: [client, requestId, cutoff]
            ).map { StoredAnswer(kind: $0["kind"], answer: $0["answer"], createdAt: Date(timeIntervalSince1970: $0["createdAt"])) }
        }
    }

    /// Stores the answer to `requestId` (replacing an expired one).
    public func storeAnswer(_ answer: String, kind: String, to requestId: String, from client: String) async throws {
        let at = now().timeIntervalSince1970
        let row = AnswerRow(client: client, requestId: requestId, kind: kind, answer: answer)
        try await database.pool.write { db in try row.insert(at: at, db) }
    }

    /// A request's answer kept for its retries, as ``AuditLog/record(_:keeping:)`` writes it beside the request's
    /// audit entry (one transaction).
    public struct AnswerRow: Sendable, Hashable {
        public var client: String
        public var requestId: String
        public var kind: String
        public var answer: String

        public init(client: String, requestId: String, kind: String, answer: String) {
            self.client = client
            self.requestId = requestId
            self.kind = kind
            self.answer = answer
        }

        func insert(at: Double, _ db: Database) throws {
            try db.execute(
                sql: "INSERT OR REPLACE INTO requestAnswer (deviceId, requestId, kind, answer, createdAt) VALUES (?, ?, ?, ?, ?)",
                arguments: [client, requestId, kind, answer, at])
        }
    }

    /// Deletes answers older than `maxAge`; returns how many.
    @discardableResult
    public func pruneAnswers(maxAge: TimeInterval) async throws -> Int {
        let cutoff = now().addingTimeInterval(-maxAge).timeIntervalSince1970
        return try await database.pool.write { db in
            try db.execute(sql: "DELETE FROM requestAnswer WHERE createdAt < ?", arguments: [cutoff])
            return db.changesCount
        }
    }
}

/// ``ClientMemory``'s subscriptions in memory (shared by its copies).
private final class Remembered: Sendable {
    let state = Mutex(RememberedSubscriptions())
}

/// The subscriptions by client, and a counter of the writes.
private struct RememberedSubscriptions {
    var byClient: [String: [String]] = [:]
    var generation: UInt64 = 0
}
