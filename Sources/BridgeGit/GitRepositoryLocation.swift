import BridgeProtocol
import ConfinedFiles
import Foundation

/// Where a work tree's `.git` leads, and whether the bridge's git may go there (SECURITY.md, "Hostile
/// repositories"). The agent writes `.git` files and directories below its own directory, and a `.git` gitfile
/// (`gitdir: …`) or a git directory's `commondir` can name any repository on the machine: the bridge's commit,
/// branch, switch and push would then write (and push) that one.
///
/// Accepted: the work tree's own `.git` directory without a `commondir` (the plain checkout), or a git directory
/// whose common directory is the `.git` of a checkout inside the roots, the git directory being that `.git` itself
/// or one of its `worktrees/<name>` (the bridge's own linked worktrees, and any other `git worktree add` of such a
/// checkout). Everything else is `unsafe_repository`. The files are read as what they must be (small regular
/// files, reached without a link, without blocking); the paths found are resolved, and git is then given them
/// (`GIT_DIR`, `GIT_COMMON_DIR`) instead of reading the files again.
struct GitRepositoryLocation: Sendable, Hashable {
    /// The git directory (resolved).
    var gitDirectory: String
    /// The common directory (resolved): objects, refs, configuration, hooks.
    var commonDirectory: String
    /// The checkout whose `.git` the common directory is.
    var checkout: String

    /// Longest gitfile or `commondir` read.
    static let maxFileBytes = 4096

    init(top: String, roots: WorkspaceRoots) throws {
        let dotGit = top == "/" ? "/.git" : top + "/.git"
        let kind: ConfinedEntry.Kind
        do {
            kind = try ConfinedDirectory.open(absolute: top).kind(of: ".git")
        } catch {
            throw Self.refusal(top, "its .git cannot be looked at (\(error.message))")
        }
        var gitDirectory = dotGit
        var ownDirectory = true
        switch kind {
        case .directory:
            break
        case .file:
            guard let text = try Self.text(dotGit, top: top), text.hasPrefix("gitdir: ") else {
                throw Self.refusal(top, "\(dotGit) is not a gitfile (gitdir: …)")
            }
            gitDirectory = try Self.resolve(String(text.dropFirst(8)), from: top, top: top, what: dotGit)
            ownDirectory = false
        default:
            throw Self.refusal(top, "\(dotGit) is neither a git directory nor a gitfile")
        }
        var commonDirectory = gitDirectory
        if let text = try Self.text(gitDirectory + "/commondir", top: top) {
            commonDirectory = try Self.resolve(text, from: gitDirectory, top: top, what: gitDirectory + "/commondir")
            ownDirectory = false
        }
        if ownDirectory {
            self.init(gitDirectory: gitDirectory, commonDirectory: commonDirectory, checkout: top)
            return
        }
        let checkout = (commonDirectory as NSString).deletingLastPathComponent
        let isCheckoutsGit =
            (commonDirectory as NSString).lastPathComponent == ".git" && roots.contains(resolved: checkout)
            && (try? ConfinedDirectory.open(absolute: checkout).kind(of: ".git")) == .directory
        let isItsWorktree =
            gitDirectory == commonDirectory || (gitDirectory as NSString).deletingLastPathComponent == commonDirectory + "/worktrees"
        guard isCheckoutsGit, isItsWorktree else {
            throw Self.refusal(
                top,
                "its .git leads to the repository at \(commonDirectory) (git directory \(gitDirectory)), which is not the .git of a checkout inside the roots"
            )
        }
        self.init(gitDirectory: gitDirectory, commonDirectory: commonDirectory, checkout: checkout)
    }

    private init(gitDirectory: String, commonDirectory: String, checkout: String) {
        self.gitDirectory = gitDirectory
        self.commonDirectory = commonDirectory
        self.checkout = checkout
    }

    /// The text of the small file git reads at `path` (only trailing line ends removed, as git does); nil when
    /// there is none.
    /// - Throws: `unsafe_repository` when something else is there (a link, a FIFO, a directory, too large, not UTF-8).
    private static func text(_ path: String, top: String) throws -> String? {
        let bytes: [UInt8]?
        do {
            bytes = try ConfinedDirectory.contents(ofRegularFile: path, limit: maxFileBytes)
        } catch {
            throw refusal(top, "\(path) is not a plain file (\(error.message))")
        }
        guard let bytes else {
            var info = stat()
            guard lstat(path, &info) != 0 else { throw refusal(top, "\(path) is larger than \(maxFileBytes) bytes") }
            return nil
        }
        guard var text = String(validating: bytes, as: UTF8.self), !text.contains("\u{0}") else {
            throw refusal(top, "\(path) is not text")
        }
        while let last = text.unicodeScalars.last, last == "\n" || last == "\r" { text.unicodeScalars.removeLast() }
        return text
    }

    /// `path` (relative to `base` unless absolute) resolved; it must be a directory.
    private static func resolve(_ path: String, from base: String, top: String, what: String) throws -> String {
        let full = path.hasPrefix("/") ? path : base + "/" + path
        guard !path.isEmpty, let resolved = WorkspaceRoots.resolve(full), WorkspaceRoots.isDirectory(resolved) else {
            throw refusal(top, "\(what) names \(full.prefix(300)), which is not a directory")
        }
        return resolved
    }

    private static func refusal(_ top: String, _ reason: String) -> GitError {
        GitError(.unsafeRepository, "the bridge's git does not run in \(top): \(reason)")
    }
}
