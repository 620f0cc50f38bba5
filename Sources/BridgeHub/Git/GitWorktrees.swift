import BridgeProtocol
import ChildProcess
import ConfinedFiles
import Foundation

/// A worktree per task: `startThread {worktree}` makes a new branch and a `git worktree` for it next to the
/// repository, `removeWorktree` takes it away again. Which branch a worktree has and which checkout it belongs to is
/// read from git's own files (``GitWorktreeFacts``), so it needs no memory of its own and survives restarts.
extension GitCheckout {
    /// Where the bridge puts a repository's worktrees: next to it (`<repo>.worktrees/`), or, when the repository is
    /// a root itself (next to it is outside the roots), inside it (`.codex-worktrees/`, which the repository's own
    /// `info/exclude` then hides).
    static let siblingSuffix = ".worktrees"
    static let insideDirectory = ".codex-worktrees"

    /// Creates branch `branch` at `from` (else `HEAD`) in a new worktree; → the directory the thread runs in (the
    /// same place inside the worktree as the thread's directory is inside this checkout).
    /// - Parameter allowed: whether a directory (resolved, absolute) is inside the roots.
    func addWorktree(branch: String, from: String?, allowed: (String) -> Bool) async throws -> String {
        guard GitRefName.isValidBranch(branch) else { throw HubError(.badRequest, "\(branch.prefix(200)) is not a valid branch name") }
        let config = try await config(.user)
        if try await git(["rev-parse", "--verify", "--quiet", "refs/heads/" + branch], config).status == 0 {
            throw HubError(.conflict, "branch \(branch) already exists")
        }
        let start = try await resolveCommit(from ?? "HEAD", config)
        let parent = (tree.top as NSString).deletingLastPathComponent
        let name = (tree.top as NSString).lastPathComponent
        let container: String
        if tree.top != "/", allowed(parent) {
            container = parent + "/" + name + Self.siblingSuffix
        } else {
            container = tree.top + "/" + Self.insideDirectory
            try await excludeInside(config)
        }
        let slug = branch.replacingOccurrences(of: "/", with: "-")
        try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
        // A free name, looked up through one descriptor of the container (no link followed); git then refuses a
        // name taken meanwhile.
        let taken = try? ConfinedDirectory.open(absolute: container)
        var free = slug
        var suffix = 2
        while let taken, (try? taken.kind(of: free)) != nil {
            free = slug + "-\(suffix)"
            suffix += 1
        }
        let path = container + "/" + free
        let outcome = try await git(["worktree", "add", "--quiet", "-b", branch, path, start], config)
        guard outcome.status == 0 else { throw HubError(.failed, "git worktree add: " + Self.reason(outcome)) }
        guard let resolved = WorkspaceRoots.resolve(path) else { throw HubError(.failed, "git worktree add made no \(path)") }
        let relative = tree.relativeDirectory
        let directory = relative == "." ? resolved : resolved + "/" + relative
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Adds `/.codex-worktrees/` to the repository's `info/exclude` (once), so the main checkout does not list them.
    private func excludeInside(_ config: GitConfigSnapshot) async throws {
        let common = try await git(["rev-parse", "--path-format=absolute", "--git-common-dir"], config)
        guard common.status == 0 else { throw HubError(.failed, "git rev-parse: " + Self.reason(common)) }
        let info = common.text.trimmingCharacters(in: .whitespacesAndNewlines) + "/info"
        let exclude = info + "/exclude"
        let line = "/\(Self.insideDirectory)/"
        // Read as what it must be, a regular file in the repository: a link would have the bridge copy the file it
        // points to into the repository (for the agent to read), a FIFO would hang it.
        let existing: String
        do {
            existing = String(decoding: try ConfinedDirectory.contents(ofRegularFile: exclude, limit: 1 << 20) ?? [], as: UTF8.self)
        } catch {
            throw HubError(.unsafeRepository, "\(exclude) is not a plain file (\(error.message)); the bridge leaves it alone")
        }
        guard !existing.split(separator: "\n").contains(Substring(line)) else { return }
        try FileManager.default.createDirectory(atPath: info, withIntermediateDirectories: true)
        let text = existing + (existing.isEmpty || existing.hasSuffix("\n") ? "" : "\n") + line + "\n"
        try text.write(toFile: exclude, atomically: true, encoding: .utf8)
    }

    /// Removes this checkout, a worktree the bridge made (its branch stays); git refuses when it has uncommitted
    /// or untracked files, unless `force`.
    func removeWorktree(force: Bool, allowed: (String) -> Bool) async throws {
        guard let facts = GitWorktreeFacts(top: tree.top), let main = facts.mainCheckout, allowed(main) else {
            throw HubError(.badRequest, "\(tree.top) is not a worktree of a repository inside the roots")
        }
        let container = (tree.top as NSString).deletingLastPathComponent
        guard container.hasSuffix(Self.siblingSuffix) || (container as NSString).lastPathComponent == Self.insideDirectory else {
            throw HubError(.badRequest, "\(tree.top) is not a worktree the bridge made (under <repository>.worktrees)")
        }
        let mainCheckout = GitCheckout(tree: GitWorkTree(top: main, gitPath: main + "/.git", directory: main), runner: runner)
        let config = try await mainCheckout.config(.user)
        let outcome = try await mainCheckout.git(["worktree", "remove"] + (force ? ["--force"] : []) + ["--", tree.top], config)
        guard outcome.status == 0 else {
            throw HubError(force ? .failed : .conflict, "git worktree remove: " + Self.reason(outcome))
        }
    }
}

/// What git's files say about a linked worktree: its branch and the main checkout it belongs to. Read without
/// running git (cheap enough for every thread of a `listThreads`); the files are the repository's, so what they say
/// is only reported when the caller finds the main checkout inside the roots.
struct GitWorktreeFacts: Sendable, Hashable {
    /// The branch checked out (nil when detached).
    var branch: String?
    /// The main checkout's top (nil when the repository is bare).
    var mainCheckout: String?

    /// The facts of the worktree whose top is `top`; nil when `top/.git` is not a gitfile of a linked worktree.
    init?(top: String) {
        guard let gitfile = Self.read(top + "/.git"), gitfile.hasPrefix("gitdir: ") else { return nil }
        var gitdir = String(gitfile.dropFirst(8)).trimmingCharacters(in: .whitespacesAndNewlines)
        if !gitdir.hasPrefix("/") { gitdir = top + "/" + gitdir }
        guard let commondir = Self.read(gitdir + "/commondir")?.trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
        let common = commondir.hasPrefix("/") ? commondir : gitdir + "/" + commondir
        guard let resolvedCommon = WorkspaceRoots.resolve(common) else { return nil }
        mainCheckout =
            (resolvedCommon as NSString).lastPathComponent == ".git" ? (resolvedCommon as NSString).deletingLastPathComponent : nil
        let head = Self.read(gitdir + "/HEAD")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        branch = head.hasPrefix("ref: refs/heads/") ? String(head.dropFirst(16)) : nil
        if let branch, !GitRefName.isValidBranch(branch) { self.branch = nil }
    }

    /// A small text file (at most 4 KiB, a regular file reached without a link), nil otherwise.
    private static func read(_ path: String) -> String? {
        guard let bytes = try? ConfinedDirectory.contents(ofRegularFile: path, limit: 4096) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
