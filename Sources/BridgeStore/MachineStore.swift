import Foundation
import GRDB

/// The machines linked to this bridge (`codex-bridge machines add`): where each is, how this bridge proves
/// itself there (the device token it was given when it paired, and the certificate it pinned), and its state as
/// the running bridge last saw it.
public struct MachineStore: Sendable {
    /// One linked machine.
    public struct Machine: Sendable, Hashable {
        /// The other bridge's server id.
        public var id: String
        public var name: String
        /// Addresses to try, best first, all on `port`.
        public var addresses: [String]
        public var port: Int
        /// The SHA-256 of the certificate pinned at pairing (TLS); nil for plain `ws://` (loopback, tests).
        public var fingerprint: String?
        /// The device this bridge is on the other one.
        public var deviceId: String
        /// The device token the other bridge gave this one (a credential: never logged).
        public var token: String
        /// This bridge's client id there (its subscriptions and retried requests are remembered under it).
        public var clientId: String
        /// `online`, `offline` or `pending`, as the running bridge last saw it.
        public var state: String
        public var addedAt: Date
        /// Why the running bridge closed the link the last time it did (a wire error code, `bad_frame` or
        /// `over_budget`, and a message), until the link works again.
        public var errorCode: String?
        public var errorMessage: String?

        /// `host:port` it is reached at first (an IPv6 address in brackets).
        public var address: String {
            let host = addresses.first.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "-"
            return "\(host):\(port)"
        }

        public init(
            id: String, name: String, addresses: [String], port: Int, fingerprint: String?, deviceId: String, token: String,
            clientId: String, state: String = "offline", addedAt: Date = Date(), errorCode: String? = nil, errorMessage: String? = nil
        ) {
            self.errorCode = errorCode
            self.errorMessage = errorMessage
            self.id = id
            self.name = name
            self.addresses = addresses
            self.port = port
            self.fingerprint = fingerprint
            self.deviceId = deviceId
            self.token = token
            self.clientId = clientId
            self.state = state
            self.addedAt = addedAt
        }
    }

    /// Most machines one bridge links.
    public static let maxMachines = 64

    public let database: BridgeDatabase

    public init(database: BridgeDatabase) {
        self.database = database
    }

    /// Every linked machine, oldest first.
    public func all() throws -> [Machine] {
        try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM machine ORDER BY addedAt, id").map(Self.machine)
        }
    }

    /// The machine with this id or a unique id prefix (at least 4 characters), or a unique name.
    public func find(_ reference: String) throws -> Machine? {
        let machines = try all()
        if let exact = machines.first(where: { $0.id == reference }) { return exact }
        let byPrefix = reference.count >= 4 ? machines.filter { $0.id.hasPrefix(reference) } : []
        if byPrefix.count == 1 { return byPrefix[0] }
        let byName = machines.filter { $0.name == reference }
        return byName.count == 1 ? byName[0] : nil
    }

    /// Adds a machine, or replaces the link to the same machine (pairing again gives a new token).
    /// - Throws: ``StoreError/invalid(_:)`` beyond ``maxMachines``.
    public func save(_ machine: Machine) async throws {
        try await database.writeImmediate { db in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM machine WHERE id != ?", arguments: [machine.id]) ?? 0
            guard count < Self.maxMachines else {
                throw StoreError.invalid("this bridge already links \(Self.maxMachines) machines; remove one first")
            }
            let addresses = String(decoding: try JSONEncoder().encode(machine.addresses), as: UTF8.self)
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO machine (id, name, addresses, port, fingerprint, deviceId, token, clientId, state, addedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    machine.id, machine.name, addresses, machine.port, machine.fingerprint, machine.deviceId, machine.token,
                    machine.clientId, machine.state, machine.addedAt.timeIntervalSince1970,
                ])
        }
    }

    /// Removes a machine; false when there was none with this id.
    @discardableResult
    public func remove(_ id: String) async throws -> Bool {
        try await database.writeImmediate { db in
            try db.execute(sql: "DELETE FROM machine WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// Renames a machine; false when there was none with this id.
    @discardableResult
    public func rename(_ id: String, to name: String) async throws -> Bool {
        try await database.writeImmediate { db in
            try db.execute(sql: "UPDATE machine SET name = ? WHERE id = ?", arguments: [name, id])
            return db.changesCount > 0
        }
    }

    /// Records the state the running bridge sees, and why it closed the link (nil: nothing wrong).
    public func setState(_ id: String, _ state: String, errorCode: String? = nil, errorMessage: String? = nil) async throws {
        try await database.writeImmediate { db in
            try db.execute(
                sql: "UPDATE machine SET state = ?, errorCode = ?, errorMessage = ? WHERE id = ?",
                arguments: [state, errorCode, errorMessage, id])
        }
    }

    private static func machine(_ row: Row) -> Machine {
        let addresses = (try? JSONDecoder().decode([String].self, from: Data((row["addresses"] as String).utf8))) ?? []
        return Machine(
            id: row["id"], name: row["name"], addresses: addresses, port: row["port"], fingerprint: row["fingerprint"],
            deviceId: row["deviceId"], token: row["token"], clientId: row["clientId"], state: row["state"],
            addedAt: Date(timeIntervalSince1970: row["addedAt"]), errorCode: row["errorCode"], errorMessage: row["errorMessage"])
    }
}
