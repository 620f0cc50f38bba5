import ConfinedFiles
import Foundation

/// A git work tree the bridge runs git in: the top of the work tree, its `.git` (a directory, or a gitfile for a
/// linked worktree) and the thread's directory inside it.
///
/// Found by walking up from the thread's directory, never by asking git: `GIT_DIR` and `GIT_WORK_TREE` are then
/// set from it, so `core.worktree` in a repository's configuration cannot point git at other files.
struct GitWorkTree: Sendable, Hashable {
    /// The top of the work tree.
    var top: String
    /// `top + "/.git"`.
    var gitPath: String
    /// The thread's directory (at or below `top`).
    var directory: String

    /// The work tree holding `directory` (resolved, absolute); nil outside any repository.
    static func containing(_ directory: String) -> GitWorkTree? {
        guard let top = repositoryTop(containing: directory) else { return nil }
        return GitWorkTree(top: top, gitPath: top == "/" ? "/.git" : top + "/.git", directory: directory)
    }

    /// The nearest directory at or above `directory` holding a `.git` that git would take: a directory with a
    /// `HEAD`, or a gitfile (`gitdir: …`). Like git's own discovery, an empty or unrelated `.git` on the way up is
    /// passed over rather than taken for the repository.
    static func repositoryTop(containing directory: String) -> String? {
        var url = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        while true {
            if isRepositoryEntry(url.appendingPathComponent(".git").path) { return url.path }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { return nil }
            url = parent
        }
    }

    /// Whether `path` (a `.git`, not followed if a link) is a git directory with a `HEAD` or a gitfile.
    static func isRepositoryEntry(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            var head = stat()
            return lstat(path + "/HEAD", &head) == 0 && ((head.st_mode & S_IFMT) == S_IFREG || (head.st_mode & S_IFMT) == S_IFLNK)
        case S_IFREG:
            // Read once, without following a link and without blocking on a FIFO swapped in meanwhile.
            guard let bytes = try? ConfinedDirectory.contents(ofRegularFile: path, limit: 4096) else { return false }
            return bytes.starts(with: Array("gitdir: ".utf8))
        default:
            return false
        }
    }

    /// `directory` relative to `top` (`.` at the top), as a pathspec.
    var relativeDirectory: String {
        guard directory != top else { return "." }
        let prefix = top == "/" ? "/" : top + "/"
        return directory.hasPrefix(prefix) ? String(directory.dropFirst(prefix.count)) : "."
    }
}
