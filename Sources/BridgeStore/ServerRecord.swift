import Foundation

/// What a running `serve` records in `server.json` (0600) so that `pair` and `status`, run from another
/// terminal, know the port it actually bound and where it listens.
public struct ServerRecord: Sendable, Hashable, Codable {
    /// The server's process id.
    public var pid: Int32
    /// The port it bound (the real one when it was asked for port 0).
    public var port: Int
    /// What it was asked to listen on (`0.0.0.0`, `::`, `tailscale`, an address).
    public var host: String
    /// The addresses it listens on or advertises, best first.
    public var addresses: [String]
    /// When it started.
    public var startedAt: Date
    /// Whether it serves TLS (`wss://`).
    public var tls: Bool
    /// The fingerprint clients pin, when `tls`: the workstation's certificate authority's, or the provided
    /// certificate's.
    public var fingerprint: String?
    /// Whether `fingerprint` is the workstation's own CA (`serve --tls`): the port then answers plain HTTP with
    /// the "Trust this workstation" page, where the web pairing URL starts. Nil in records of earlier builds.
    public var workstationCA: Bool?
    /// With `serve --shared`: the shared codex app-server's socket (`codex --remote unix://…` attaches to it).
    public var sharedSocket: String?

    public init(
        pid: Int32 = getpid(), port: Int, host: String, addresses: [String], startedAt: Date = Date(),
        tls: Bool = false, fingerprint: String? = nil, workstationCA: Bool? = nil, sharedSocket: String? = nil
    ) {
        self.workstationCA = workstationCA
        self.sharedSocket = sharedSocket
        self.pid = pid
        self.port = port
        self.host = host
        self.addresses = addresses
        self.startedAt = startedAt
        self.tls = tls
        self.fingerprint = fingerprint
    }

    /// Whether the recorded process still exists (`kill(pid, 0)`; `EPERM` means it exists under another user).
    public var isProcessAlive: Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// Writes `server.json` atomically, 0600.
    public func write(paths: StatePaths) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(self)
        try SecretFile.write(String(decoding: data, as: UTF8.self) + "\n", to: paths.serverFile)
    }

    /// The recorded server, or nil when there is no `server.json`.
    /// - Throws: `StoreError.corrupt` when the file is not a server record.
    public static func read(paths: StatePaths) throws -> ServerRecord? {
        guard let text = try SecretFile.read(paths.serverFile) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(ServerRecord.self, from: Data(text.utf8))
        } catch {
            throw StoreError.corrupt("\(paths.serverFile.path) is not a server record: \(error)")
        }
    }

    /// The recorded server if its process is still running; nil when none is recorded, the record is
    /// unreadable, or the process is gone (a crashed `serve` leaves a stale file behind).
    public static func readRunning(paths: StatePaths) -> ServerRecord? {
        guard let record = try? read(paths: paths), record.isProcessAlive else { return nil }
        return record
    }

    /// Deletes `server.json` if it still names `pid` (so a server shutting down does not remove the record
    /// of a newer one).
    public static func remove(paths: StatePaths, ifPid pid: Int32 = getpid()) {
        guard let record = try? read(paths: paths), record.pid == pid else { return }
        unlink(paths.serverFile.path)
    }
}
