/// One server a thread may preview: a listening socket held by a process whose cwd lies in the thread's directory.
public struct FoundServer: Sendable, Hashable {
    public var port: Int
    public var connectHost: String
    public var process: String
    public var pid: Int32
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
            guard byPort[socket.port] == nil, let owner = byInode[socket.inode] else { continue }
            byPort[socket.port] = FoundServer(port: socket.port, connectHost: socket.connectHost, process: owner.name, pid: owner.pid)
        }
        return byPort.values.sorted { $0.port < $1.port }
    }
}
