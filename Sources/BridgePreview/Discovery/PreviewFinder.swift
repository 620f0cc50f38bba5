import Foundation

/// Finds a thread's dev servers: the loopback-reachable listening sockets held by this user's processes whose
/// cwd is the thread's directory or below it, not the bridge's own process nor its ports (``ServerMatch``).
public struct PreviewFinder: Sendable {
    public var scanner: ProcScanner
    /// The bridge's own pid (its listeners are never offered).
    public var ownPid: Int32
    public var uid: UInt32

    public init(scanner: ProcScanner = ProcScanner(), ownPid: Int32 = getpid(), uid: UInt32 = getuid()) {
        self.scanner = scanner
        self.ownPid = ownPid
        self.uid = uid
    }

    /// The servers in `directory` (a resolved path), by port. Reads `/proc` on a thread of its own.
    public func servers(in directory: String, excluding ports: Set<Int>) async -> [FoundServer] {
        let scanner = self.scanner
        let (ownPid, uid) = (self.ownPid, self.uid)
        return await Task.detached {
            let sockets = scanner.listeningSockets().filter { $0.uid == uid && !ports.contains($0.port) }
            let owners = scanner.owners(of: Set(sockets.map(\.inode)), except: ownPid)
            return ServerMatch.servers(sockets: sockets, owners: owners, directory: directory, uid: uid, excludedPorts: ports)
        }.value
    }
}
