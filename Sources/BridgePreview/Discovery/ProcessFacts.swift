/// What `/proc` tells of one process that holds listening sockets.
public struct ProcessFacts: Sendable, Hashable {
    public var pid: Int32
    /// Its working directory, as the kernel resolves it (`/proc/PID/cwd`).
    public var cwd: String
    /// Its name (`/proc/PID/comm`).
    public var name: String
    /// The inodes of the sockets it holds open (`/proc/PID/fd/N` → `socket:[inode]`).
    public var socketInodes: Set<UInt64>
    /// When it started (`/proc/PID/stat`, field 22): with the pid, tells it from a later process of the same pid.
    public var startTime: UInt64

    public init(pid: Int32, cwd: String, name: String, socketInodes: Set<UInt64>, startTime: UInt64 = 0) {
        self.pid = pid
        self.cwd = cwd
        self.name = name
        self.socketInodes = socketInodes
        self.startTime = startTime
    }

    /// Who it is, told apart from a later process of the same pid.
    public var owner: ServerOwner { ServerOwner(pid: pid, startTime: startTime) }

    /// The start time in a `/proc/PID/stat` line: the 22nd field, counted after the name's closing parenthesis
    /// (the name, field 2, may hold spaces and parentheses itself).
    public static func startTime(stat: String) -> UInt64? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        // fields[0] is field 3 (the state), so field 22 is fields[19].
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }

    /// The inode a `/proc/PID/fd/N` link names when it is a socket: `socket:[12345]` → 12345.
    public static func socketInode(link: String) -> UInt64? {
        guard link.hasPrefix("socket:["), link.hasSuffix("]") else { return nil }
        return UInt64(link.dropFirst("socket:[".count).dropLast())
    }

    /// Whether `cwd` is `directory` or below it (both resolved paths).
    public static func isInside(_ cwd: String, directory: String) -> Bool {
        guard directory.hasPrefix("/"), cwd.hasPrefix("/") else { return false }
        if cwd == directory || directory == "/" { return true }
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        return cwd.hasPrefix(base)
    }
}
