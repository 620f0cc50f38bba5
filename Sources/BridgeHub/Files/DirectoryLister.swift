import BridgeProtocol
import ConfinedFiles
import Foundation

/// Lists one directory for `listDirectory` (the path already passed the gate), through a descriptor opened
/// below its root (``WorkspaceFiles``): directories first, then files, each sorted by name byte order; whether
/// each directory is the top of a git repository. Names that are not valid UTF-8 are left out (a client
/// could not name them back). Runs off the hub actor (its I/O blocks).
struct DirectoryLister: Sendable {
    /// Most entries returned; the answer says `truncated` beyond.
    var limit = 2000

    @concurrent
    func list(_ path: String, roots: WorkspaceRoots) async throws -> DirectoryListing {
        let directory = try WorkspaceFiles.openDirectory(path, roots: roots)
        let entries: [ConfinedEntry]
        do {
            entries = try directory.entries()
        } catch {
            throw HubError(.forbiddenPath, "cannot read \(path): permission denied or not a directory")
        }
        var directories: [DirectoryEntry] = []
        var files: [DirectoryEntry] = []
        for entry in entries {
            switch entry.kind {
            case .directory, .linkToDirectory:
                // A link to a directory is shown as one: opening it passes the gate, which refuses a target
                // outside the roots.
                let git = (try? directory.kind(of: entry.name + "/.git")) != nil
                directories.append(DirectoryEntry(name: entry.name, kind: .dir, git: git))
            case .file, .symbolicLink, .other:
                files.append(DirectoryEntry(name: entry.name, kind: .file))
            }
        }
        let byName = { (a: DirectoryEntry, b: DirectoryEntry) in a.name.utf8.lexicographicallyPrecedes(b.name.utf8) }
        let all = directories.sorted(by: byName) + files.sorted(by: byName)
        return DirectoryListing(path: path, entries: Array(all.prefix(limit)), truncated: all.count > limit ? true : nil)
    }
}
