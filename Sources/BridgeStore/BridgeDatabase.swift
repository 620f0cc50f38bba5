import CSQLiteSetup
import Foundation
import GRDB
import Logging

/// The bridge's SQLite database (`bridge.sqlite` in the state directory): devices, pairing codes and, later,
/// the event journal.
///
/// One `DatabasePool` in WAL mode per process. `serve` and the short-lived CLI processes (`pair`,
/// `devices revoke`) open the same file at the same time: WAL lets readers run beside the one writer, and a
/// busy timeout makes a writer wait for another process's write transaction instead of failing with
/// `SQLITE_BUSY`. Write transactions that read before they write are `BEGIN IMMEDIATE` (see
/// ``writeImmediate(_:)``) so they never fail upgrading a stale read snapshot.
///
/// The file and its `-wal`/`-shm` companions are 0600: the file is created 0600 before SQLite opens it, and
/// SQLite creates the companions with the mode of the database file.
public struct BridgeDatabase: Sendable {
    /// How long a writer waits for another connection's write lock before it gives up.
    public static let defaultBusyTimeout: Duration = .seconds(5)

    /// The GRDB pool; BridgeStore's types use it, and so may later stores in this module.
    public let pool: DatabasePool
    /// Where the database lives.
    public let url: URL
    /// The active devices' tokens in memory, shared by every ``DeviceRegistry`` on this database (each applies
    /// its writes to it).
    public let deviceTokens: DeviceTokens
    /// Fires when the trust or fleet tables change: this process's own writes through ``writeImmediate(_:)``, and
    /// (bumped by serve's state-directory watch) another process's. serve's watchers wait on it.
    public let changes = StateChanges()

    /// SQLite's process-wide options (CSQLiteSetup: multi-thread mode, no memory statistics), set once before the
    /// process's first connection: SQLite's own mutex around every call cost ~3 % of the relay's CPU (P2). A process
    /// that used SQLite before (a test opening GRDB directly) keeps the defaults, which are as correct.
    static let sqliteConfigured: Int32 = cb_sqlite_configure()

    /// Opens (creating if needed) the database at `paths.databaseFile`, preparing the state directory (0700)
    /// and running every pending migration.
    public init(paths: StatePaths, busyTimeout: Duration = defaultBusyTimeout, logger: Logger) throws {
        try paths.prepare()
        try self.init(url: paths.databaseFile, busyTimeout: busyTimeout, logger: logger)
    }

    /// Opens (creating if needed) the database at `url` and runs every pending migration. The parent
    /// directory must exist.
    public init(url: URL, busyTimeout: Duration = defaultBusyTimeout, logger: Logger) throws {
        _ = Self.sqliteConfigured
        self.url = url
        self.deviceTokens = DeviceTokens(databaseFile: url)
        try Self.createPrivateFiles(at: url)
        var configuration = Configuration()
        let seconds = Double(busyTimeout.components.seconds) + Double(busyTimeout.components.attoseconds) / 1e18
        configuration.busyMode = .timeout(seconds)
        configuration.label = "codex-bridge"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            pool = try DatabasePool(path: url.path, configuration: configuration)
            try BridgeMigrations.migrator.migrate(pool)
        } catch {
            throw StoreError.io("cannot open the database \(url.path): \(error)")
        }
        // The WAL files exist now: make sure they are private even if an older version left them looser.
        // chmod only: opening and closing another descriptor of the database file now would drop this
        // process's fcntl locks on it, and the next CLI process to close would delete the -wal/-shm files
        // under this one.
        try Self.createPrivateFiles(at: url, create: false)
        logger.debug("database open", metadata: ["bridge.db.path": "\(url.path)"])
    }

    /// Runs `updates` in a `BEGIN IMMEDIATE` transaction: the write lock is taken (waiting out the busy
    /// timeout) before the first read, so a read-then-write transaction sees the latest committed state of
    /// every process and cannot fail later with `SQLITE_BUSY_SNAPSHOT`.
    public func writeImmediate<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let value = try await pool.writeWithoutTransaction { db in
            var result: T?
            try db.inTransaction(.immediate) {
                result = try updates(db)
                return .commit
            }
            return result!
        }
        changes.changed()
        return value
    }

    /// SQLite's `data_version` on the writer connection: it moves when another connection commits, and this
    /// process writes through that one connection only, so a change means another process wrote (a CLI's
    /// `devices allow`, `machines add`). ``StateChanges`` is bumped by it instead of re-reading tables.
    public func externalVersion() async throws -> Int {
        try await pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }

    /// Creates the database file 0600 when missing and tightens it and its `-wal`/`-shm` files to 0600 when
    /// they exist with another mode.
    /// With `create: false` it never opens the file (safe while SQLite has it open).
    static func createPrivateFiles(at url: URL, create: Bool = true) throws {
        if create {
            let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                throw StoreError.io("cannot create \(url.path): \(String(cString: strerror(errno)))")
            }
            close(fd)
        }
        for path in [url.path, url.path + "-wal", url.path + "-shm"] {
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            if info.st_mode & 0o777 != 0o600, chmod(path, 0o600) != 0 {
                throw StoreError.io("cannot chmod 0600 \(path): \(String(cString: strerror(errno)))")
            }
        }
    }
}
