/// One server a thread may preview: a listening socket held by a process whose cwd lies in the thread's directory.
public struct FoundServer: Sendable, Hashable {
    public var port: Int
    public var connectHost: String
    public var process: String
    public var owner: ServerOwner
    /// The owner's listening sockets on the port (their inodes).
    public var sockets: Set<UInt64>
}

/// The rule that decides which listening sockets a thread may preview, on what `/proc` said: the socket is
/// this user's, its owner is not the bridge, the owner's cwd is the thread's directory or below it, and the
/// port is not one of the bridge's own. One entry per port (the IPv4 socket first when a server holds both).
public enum ServerMatch {
    public static func servers(
        sockets: [ListeningSocket], owners: [ProcessFacts], directory: String, uid: UInt32, excludedPorts: Set<Int>
    ) -> [FoundServer] {
        var byInode: [UInt64: ProcessFacts] = [:]
        for owner in owners where ProcessFacts.isInside(owner.cwd, directory: directory) {
            for inode in owner.socketInodes where byInode[inode] == nil { byInode[inode] = owner }
        }
        var byPort: [Int: FoundServer] = [:]
        for socket in sockets where socket.uid == uid && !excludedPorts.contains(socket.port) {
            guard let owner = byInode[socket.inode] else { continue }
            if byPort[socket.port]?.owner == owner.owner {
                byPort[socket.port]?.sockets.insert(socket.inode)
                continue
            }
            guard byPort[socket.port] == nil else { continue }
            byPort[socket.port] = FoundServer(
                port: socket.port, connectHost: socket.connectHost, process: owner.name, owner: owner.owner, sockets: [socket.inode])
        }
        return byPort.values.sorted { $0.port < $1.port }
    }

    /// Whether the process a preview was granted for still serves its port: still this process (pid and start
    /// time), still holding one of the listening sockets it held on that port then (a socket keeps its port
    /// until it is closed), its cwd still in the directory. `process` is what `/proc` says of the owner's pid now
    /// (nil: gone).
    public static func serves(_ owner: ServerOwner, sockets: Set<UInt64>, process: ProcessFacts?, directory: String) -> Bool {
        guard let process, process.owner == owner, ProcessFacts.isInside(process.cwd, directory: directory) else { return false }
        return !sockets.isDisjoint(with: process.socketInodes)
    }
}

/// Whether a preview's dev server is still the process it was opened for.
public enum PreviewOwnership: Sendable, Hashable {
    /// The same process listens on the port, from the thread's directory.
    case serves
    /// Nothing listens on the port now (the dev server stopped, or is restarting).
    case gone
    /// Another process (or another socket) listens there now, or the same process moved out of the directory:
    /// not this preview's.
    case changed
}
