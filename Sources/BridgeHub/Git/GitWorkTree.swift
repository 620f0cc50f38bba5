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

    /// The nearest directory at or above `directory` holding a `.git` entry (a directory or a gitfile).
    static func repositoryTop(containing directory: String) -> String? {
        var url = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        while true {
            var info = stat()
            if lstat(url.appendingPathComponent(".git").path, &info) == 0,
                (info.st_mode & S_IFMT) == S_IFDIR || (info.st_mode & S_IFMT) == S_IFREG
            {
                return url.path
            }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { return nil }
            url = parent
        }
    }

    /// `directory` relative to `top` (`.` at the top), as a pathspec.
    var relativeDirectory: String {
        guard directory != top else { return "." }
        let prefix = top == "/" ? "/" : top + "/"
        return directory.hasPrefix(prefix) ? String(directory.dropFirst(prefix.count)) : "."
    }
}
