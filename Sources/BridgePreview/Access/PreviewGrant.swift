/// What a ticket, then a cookie, lets a browser reach: one port of one thread, for one device, on one preview
/// origin, while the process that listened there when the ticket was issued still does.
public struct PreviewGrant: Sendable, Hashable {
    /// The paired device that opened it; nil for a session of the shared secret.
    public var deviceId: String?
    public var threadId: String
    /// The dev server's port.
    public var port: Int
    /// Where the proxy connects (`127.0.0.1`, `::1`).
    public var connectHost: String
    /// The thread's directory (resolved), where the owner's cwd must still be.
    public var directory: String
    /// The process that held the port's listening socket when the ticket was issued; nil only in tests of the
    /// books, which check no process.
    public var owner: ServerOwner?
    /// The inodes of its listening sockets on the port then.
    public var sockets: Set<UInt64>
    /// The preview origin's port (the browser's origin for this preview); 0 until ``PreviewAccess`` gives one.
    public var originPort: Int

    public init(
        deviceId: String?, threadId: String, port: Int, connectHost: String, directory: String = "/", owner: ServerOwner? = nil,
        sockets: Set<UInt64> = [], originPort: Int = 0
    ) {
        self.sockets = sockets
        self.deviceId = deviceId
        self.threadId = threadId
        self.port = port
        self.connectHost = connectHost
        self.directory = directory
        self.owner = owner
        self.originPort = originPort
    }

    /// `host:port` of the dev server, an IPv6 address in brackets.
    public var upstreamAuthority: String {
        connectHost.contains(":") ? "[\(connectHost)]:\(port)" : "\(connectHost):\(port)"
    }

    /// Which preview this is, for its origin: the thread and the dev server's port.
    public var key: PreviewOrigins.Key { .init(threadId: threadId, port: port) }
}

/// A process, told apart from a later one that reuses its pid: its pid and its start time (`/proc/PID/stat`'s
/// 22nd field, clock ticks since boot).
public struct ServerOwner: Sendable, Hashable {
    public var pid: Int32
    public var startTime: UInt64

    public init(pid: Int32, startTime: UInt64) {
        self.pid = pid
        self.startTime = startTime
    }
}
