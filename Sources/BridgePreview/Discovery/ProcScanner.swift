import Foundation

/// Reads `/proc`: the TCP tables and, for each process this user may inspect, the sockets it holds, its working
/// directory and its name. Processes of other users are unreadable (`/proc/PID/fd` is theirs) and so never
/// offered. Blocking file reads: call it off any actor that must stay responsive.
public struct ProcScanner: Sendable {
    /// The proc file system's mount point (a test may point it at a directory of its own).
    public var root: String

    public init(root: String = "/proc") {
        self.root = root
    }

    /// The listening sockets loopback reaches, IPv4 and IPv6.
    public func listeningSockets() -> [ListeningSocket] {
        ProcNetTable.listeningSockets(in: read("\(root)/net/tcp") ?? "", ipv6: false)
            + ProcNetTable.listeningSockets(in: read("\(root)/net/tcp6") ?? "", ipv6: true)
    }

    /// Every readable process that holds one of `inodes`, with its cwd and name; `except` (the bridge itself)
    /// is skipped.
    public func owners(of inodes: Set<UInt64>, except: Int32) -> [ProcessFacts] {
        guard !inodes.isEmpty, let entries = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [] }
        var found: [ProcessFacts] = []
        for entry in entries {
            guard let pid = Int32(entry), pid != except else { continue }
            let held = socketInodes(pid: pid).intersection(inodes)
            guard !held.isEmpty, var facts = process(pid, sockets: false) else { continue }
            facts.socketInodes = held
            found.append(facts)
        }
        return found
    }

    /// One process's cwd, name, start time and (with `sockets`) the sockets it holds; nil when it is gone or
    /// not this user's to read.
    public func process(_ pid: Int32, sockets: Bool = true) -> ProcessFacts? {
        guard let cwd = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(root)/\(pid)/cwd"),
            let stat = read("\(root)/\(pid)/stat"), let startTime = ProcessFacts.startTime(stat: stat)
        else { return nil }
        let name = read("\(root)/\(pid)/comm")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        return ProcessFacts(
            pid: pid, cwd: cwd, name: String(name.prefix(64)), socketInodes: sockets ? socketInodes(pid: pid) : [], startTime: startTime)
    }

    private func socketInodes(pid: Int32) -> Set<UInt64> {
        let directory = "\(root)/\(pid)/fd"
        guard let fds = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var inodes = Set<UInt64>()
        for fd in fds {
            if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(fd)"),
                let inode = ProcessFacts.socketInode(link: link)
            {
                inodes.insert(inode)
            }
        }
        return inodes
    }

    /// A proc file's text (their size is reported as 0, so read to the end), at most 4 MiB.
    private func read(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 4 << 20) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
