/// One server a thread may preview: a listening socket held by a process whose cwd lies in the thread's directory.
public struct FoundServer: Sendable, Hashable {
    public var port: Int
    public var connectHost: String
    public var process: String
    public var owner: ServerOwner
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
            byPort[socket.port] = FoundServer(port: socket.port, connectHost: socket.connectHost, process: owner.name, owner: owner.owner)
        }
        return byPort.values.sorted { $0.port < $1.port }
    }

    /// Whether the process a preview was granted for still serves its port: still this process (pid and start
    /// time), still holding one of the port's listening sockets of this user, its cwd still in the directory
    /// (`.serves`); else whether nothing listens there now (`.gone`) or something else does (`.changed`).
    /// `process` is what `/proc` says of the owner's pid now (nil: gone).
    public static func ownership(
        _ owner: ServerOwner, port: Int, sockets: [ListeningSocket], process: ProcessFacts?, directory: String, uid: UInt32
    ) -> PreviewOwnership {
        let listening = sockets.filter { $0.port == port }
        guard !listening.isEmpty else { return .gone }
        guard let process, process.owner == owner, ProcessFacts.isInside(process.cwd, directory: directory) else { return .changed }
        let inodes = Set(listening.filter { $0.uid == uid }.map(\.inode))
        return inodes.isDisjoint(with: process.socketInodes) ? .changed : .serves
    }
}

/// Whether a preview's dev server is still the process it was opened for.
public enum PreviewOwnership: Sendable, Hashable {
    /// The same process listens on the port, from the thread's directory.
    case serves
    /// Nothing listens on the port now (the dev server stopped, or is restarting).
    case gone
    /// Another process listens there now (or the same one moved out of the directory): not this preview's.
    case changed
}
