import Foundation

/// Finds a thread's dev servers: the loopback-reachable listening sockets held by this user's processes whose
/// cwd is the thread's directory or below it, not the bridge's own process nor its ports (``ServerMatch``); none
/// for a directory too broad to own what was started in it (``BroadDirectories``). And checks, at each new
/// connection of a preview, that the process it was opened for still serves its port.
public struct PreviewFinder: Sendable {
    public var scanner: ProcScanner
    /// The bridge's own pid (its listeners are never offered).
    public var ownPid: Int32
    public var uid: UInt32
    public var broad: BroadDirectories

    public init(scanner: ProcScanner = ProcScanner(), ownPid: Int32 = getpid(), uid: UInt32 = getuid(), broad: BroadDirectories = .system) {
        self.scanner = scanner
        self.ownPid = ownPid
        self.uid = uid
        self.broad = broad
    }

    /// Refuses a directory too broad to own its servers.
    public func check(_ directory: String) throws(PreviewError) {
        guard broad.isBroad(directory) else { return }
        throw PreviewError(
            .tooBroad,
            "previews are not offered for a thread in \(directory): it is / or a home directory (or holds one), where every server started would count as this thread's; start the thread and its server in the project's folder"
        )
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

    /// Whether the process `grant` was issued for still listens on its port, from the thread's directory
    /// (``ServerMatch/serves(_:sockets:process:directory:)``: that one process's `/proc` entries); when not, whether
    /// something else listens there (the TCP tables). `.changed` for a grant without an owner. Reads `/proc` on a
    /// thread of its own.
    public func ownership(_ grant: PreviewGrant) async -> PreviewOwnership {
        guard let owner = grant.owner, !broad.isBroad(grant.directory) else { return .changed }
        let scanner = self.scanner
        return await Task.detached {
            if ServerMatch.serves(owner, sockets: grant.sockets, process: scanner.process(owner.pid), directory: grant.directory) {
                return .serves
            }
            return scanner.listeningSockets().contains { $0.port == grant.port } ? .changed : .gone
        }.value
    }
}
