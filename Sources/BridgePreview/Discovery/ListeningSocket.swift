/// A TCP socket in the `LISTEN` state that a connection from this machine's loopback reaches, as
/// `/proc/net/tcp` or `/proc/net/tcp6` lists it.
public struct ListeningSocket: Sendable, Hashable {
    /// The TCP port.
    public var port: Int
    /// Where the proxy connects to reach it: `127.0.0.1` (or the other 127/8 address it is bound to) or `::1`.
    public var connectHost: String
    /// The socket's inode: `/proc/PID/fd/N` links to `socket:[inode]` in the process that holds it.
    public var inode: UInt64
    /// The socket owner's uid.
    public var uid: UInt32

    public init(port: Int, connectHost: String, inode: UInt64, uid: UInt32) {
        self.port = port
        self.connectHost = connectHost
        self.inode = inode
        self.uid = uid
    }
}
