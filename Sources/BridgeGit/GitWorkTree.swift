import ConfinedFiles
import Foundation

/// A git work tree the bridge runs git in: the top of the work tree, its git directory and common directory (where
/// its `.git` leads, ``GitRepositoryLocation``), the checkout that repository belongs to, and the thread's
/// directory inside it.
///
/// Found by walking up from the thread's directory, never by asking git: `GIT_DIR`, `GIT_COMMON_DIR` and
/// `GIT_WORK_TREE` are then set from it, so neither `core.worktree` in a repository's configuration nor a `.git`
/// file or `commondir` written meanwhile can point git at other files.
struct GitWorkTree: Sendable, Hashable {
    /// The top of the work tree.
    var top: String
    /// The git directory (resolved): `top + "/.git"`, or where a linked worktree's gitfile leads.
    var gitPath: String
    /// The common directory (resolved): the `.git` of ``repository``.
    var commonDirectory: String
    /// The top of the checkout whose `.git` is the common directory: `top` itself, or a linked worktree's main
    /// checkout.
    var repository: String
    /// The thread's directory (at or below `top`).
    var directory: String

    /// The work tree holding `directory` (resolved, absolute); nil outside any repository.
    /// - Throws: `unsafe_repository` when its `.git` leads to a repository the bridge may not use
    ///   (``GitRepositoryLocation``).
    static func containing(_ directory: String, roots: WorkspaceRoots) throws -> GitWorkTree? {
        guard let top = repositoryTop(containing: directory) else { return nil }
        return try GitWorkTree(top: top, directory: directory, roots: roots)
    }

    init(top: String, gitPath: String, commonDirectory: String, repository: String, directory: String) {
        self.top = top
        self.gitPath = gitPath
        self.commonDirectory = commonDirectory
        self.repository = repository
        self.directory = directory
    }

    /// The work tree whose top is `top`, its `.git` resolved and checked against `roots`.
    init(top: String, directory: String, roots: WorkspaceRoots) throws {
        let location = try GitRepositoryLocation(top: top, roots: roots)
        self.init(
            top: top, gitPath: location.gitDirectory, commonDirectory: location.commonDirectory, repository: location.checkout,
            directory: directory)
    }

    /// The nearest directory at or above `directory` holding a `.git` that git would take: a directory with a
    /// `HEAD`, or a gitfile (`gitdir: …`). Like git's own discovery, an empty or unrelated `.git` on the way up is
    /// passed over rather than taken for the repository.
    static func repositoryTop(containing directory: String) -> String? {
        var url = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        while true {
            if holdsRepository(url.path) { return url.path }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { return nil }
            url = parent
        }
    }

    /// Whether `directory`'s `.git` (not followed if a link) is a git directory with a `HEAD` or a gitfile. Looked
    /// at through one descriptor of `directory` (`fstatat`, no link followed; the gitfile read once, without
    /// blocking), so what the agent swaps in meanwhile is seen as what it is.
    static func holdsRepository(_ directory: String) -> Bool {
        guard let parent = try? ConfinedDirectory.open(absolute: directory) else { return false }
        switch try? parent.kind(of: ".git") {
        case .directory:
            let head = try? parent.directory(".git").kind(of: "HEAD")
            return head == .file || head == .symbolicLink
        case .file:
            guard let gitfile = try? parent.fileWithoutLinks(".git"), let bytes = try? gitfile.read(upTo: 8) else { return false }
            return bytes == Array("gitdir: ".utf8)
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
