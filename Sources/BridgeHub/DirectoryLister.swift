import BridgeProtocol
import Foundation

/// Lists one directory for `listDirectory` (the path already passed the gate): directories first, then
/// files, each sorted by name byte order; whether each directory is the top of a git repository. Names that
/// are not valid UTF-8 are left out (a client could not name them back).
struct DirectoryLister: Sendable {
    /// Most entries returned; the answer says `truncated` beyond.
    var limit = 2000

    func list(_ path: String) throws -> DirectoryListing {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw HubError(.forbiddenPath, "cannot read \(path): permission denied or not a directory")
        }
        var directories: [DirectoryEntry] = []
        var files: [DirectoryEntry] = []
        for name in names {
            let full = path == "/" ? "/" + name : path + "/" + name
            var info = stat()
            // stat follows a symbolic link: a link to a directory is shown as one (opening it still passes the
            // gate, which refuses a target outside the roots).
            guard stat(full, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                var gitInfo = stat()
                directories.append(DirectoryEntry(name: name, kind: .dir, git: lstat(full + "/.git", &gitInfo) == 0))
            } else {
                files.append(DirectoryEntry(name: name, kind: .file))
            }
        }
        let byName = { (a: DirectoryEntry, b: DirectoryEntry) in a.name.utf8.lexicographicallyPrecedes(b.name.utf8) }
        let all = directories.sorted(by: byName) + files.sorted(by: byName)
        return DirectoryListing(path: path, entries: Array(all.prefix(limit)), truncated: all.count > limit ? true : nil)
    }
}
