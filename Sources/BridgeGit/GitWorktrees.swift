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
    ///
    /// The container and the worktree's own directory are made through descriptors (`mkdirat`, no link followed):
    /// a container that exists as anything but a plain directory (a link, committed or written by the agent,
    /// would have git check the repository out wherever it points), or that is tracked content, is
    /// `unsafe_repository`. What git made is then held to the same gate as any new thread (resolved, inside
    /// `roots`, and where it was made); a worktree that fails it is removed again (`forbidden_path`).
    func addWorktree(branch: String, from: String?, roots: WorkspaceRoots) async throws -> String {
        guard GitRefName.isValidBranch(branch) else { throw GitError(.badRequest, "\(branch.prefix(200)) is not a valid branch name") }
        let config = try await config(.user)
        if try await git(["rev-parse", "--verify", "--quiet", "refs/heads/" + branch], config).status == 0 {
            throw GitError(.conflict, "branch \(branch) already exists")
        }
        let start = try await resolveCommit(from ?? "HEAD", config)
        let parent = (tree.top as NSString).deletingLastPathComponent
        let name = (tree.top as NSString).lastPathComponent
        let holder: String
        let containerName: String
        if tree.top != "/", roots.contains(resolved: parent) {
            (holder, containerName) = (parent, name + Self.siblingSuffix)
        } else {
            (holder, containerName) = (tree.top, Self.insideDirectory)
            try await checkUntracked(Self.insideDirectory, config)
            try await excludeInside(config)
        }
        let containerPath = (holder == "/" ? "" : holder) + "/" + containerName
        let made: ConfinedDirectory?
        do {
            made = try ConfinedDirectory.open(absolute: holder).makeDirectory(containerName, reuse: true)
        } catch {
            throw GitError(
                .unsafeRepository, "\(containerPath) is not a plain directory the bridge can put worktrees in (\(error.message)); remove it"
            )
        }
        guard let container = made else { throw GitError(.failed, "cannot make \(containerPath)") }
        // A free name, made in the container (no link followed; a name taken meanwhile is passed over).
        let slug = branch.replacingOccurrences(of: "/", with: "-")
        var free = slug
        var suffix = 2
        while try Self.madeDirectory(free, in: container) == false {
            free = slug + "-\(suffix)"
            suffix += 1
        }
        let path = containerPath + "/" + free
        let outcome = try await git(["worktree", "add", "--quiet", "-b", branch, path, start], config)
        guard outcome.status == 0 else {
            container.removeEmptyDirectory(free)
            throw GitError(.failed, "git worktree add: " + Self.reason(outcome))
        }
        let relative = tree.relativeDirectory
        let directory = relative == "." ? path : path + "/" + relative
        // The thread's directory in the new checkout, made (when the commit lacks it) through descriptors too: a
        // link there (the commit's) is not followed out.
        var refusal: String?
        do {
            var current = try ConfinedDirectory.open(absolute: path)
            for component in relative.split(separator: "/") where relative != "." {
                guard let next = try current.makeDirectory(String(component), reuse: true) else { break }
                current = next
            }
        } catch {
            refusal = error.message
        }
        guard refusal == nil, let confined = roots.confine(directory), Array(confined.utf8) == Array(directory.utf8) else {
            await discardWorktree(path, branch: branch, config)
            throw GitError(
                .forbiddenPath,
                "the new worktree's directory \(directory) is not a directory inside the roots\(refusal.map { " (\($0))" } ?? ""); it was removed again"
            )
        }
        return confined
    }

    /// Makes directory `name` in `container`; false when the name is taken.
    private static func madeDirectory(_ name: String, in container: ConfinedDirectory) throws -> Bool {
        do {
            return try container.makeDirectory(name, reuse: false) != nil
        } catch {
            throw GitError(.failed, "cannot make \(container.path)/\(name): \(error.message)")
        }
    }

    /// Refuses when `path` (relative to the top) is tracked content: the repository's, not the bridge's to fill.
    private func checkUntracked(_ path: String, _ config: GitConfigSnapshot) async throws {
        let listed = try await git(["ls-files", "-z", "--cached", "--", path], config)
        guard listed.status == 0 else { throw GitError(.failed, "git ls-files: " + Self.reason(listed)) }
        guard listed.output.isEmpty else {
            throw GitError(
                .unsafeRepository, "\(tree.top)/\(path) is tracked content of the repository; the bridge puts no worktrees there")
        }
    }

    /// Takes away a worktree that failed the gate, and its new branch.
    private func discardWorktree(_ path: String, branch: String, _ config: GitConfigSnapshot) async {
        _ = try? await git(["worktree", "remove", "--force", "--force", "--", path], config)
        _ = try? await git(["worktree", "prune"], config)
        _ = try? await git(["branch", "-D", branch], config)
    }

    /// Adds `/.codex-worktrees/` to the repository's `info/exclude` (once), so the main checkout does not list them.
    private func excludeInside(_ config: GitConfigSnapshot) async throws {
        let common = try await git(["rev-parse", "--path-format=absolute", "--git-common-dir"], config)
        guard common.status == 0 else { throw GitError(.failed, "git rev-parse: " + Self.reason(common)) }
        let info = common.text.trimmingCharacters(in: .whitespacesAndNewlines) + "/info"
        let exclude = info + "/exclude"
        let line = "/\(Self.insideDirectory)/"
        // Read as what it must be, a regular file in the repository: a link would have the bridge copy the file it
        // points to into the repository (for the agent to read), a FIFO would hang it.
        let existing: String
        do {
            existing = String(decoding: try ConfinedDirectory.contents(ofRegularFile: exclude, limit: 1 << 20) ?? [], as: UTF8.self)
        } catch {
            throw GitError(.unsafeRepository, "\(exclude) is not a plain file (\(error.message)); the bridge leaves it alone")
        }
        guard !existing.split(separator: "\n").contains(Substring(line)) else { return }
        try FileManager.default.createDirectory(atPath: info, withIntermediateDirectories: true)
        let text = existing + (existing.isEmpty || existing.hasSuffix("\n") ? "" : "\n") + line + "\n"
        try text.write(toFile: exclude, atomically: true, encoding: .utf8)
    }

    /// Removes this checkout, a worktree the bridge made (its branch stays); git refuses when it has uncommitted
    /// or untracked files, unless `force`.
    func removeWorktree(force: Bool, roots: WorkspaceRoots) async throws {
        guard let facts = GitWorktreeFacts(top: tree.top), let main = facts.mainCheckout, roots.contains(resolved: main) else {
            throw GitError(.badRequest, "\(tree.top) is not a worktree of a repository inside the roots")
        }
        let container = (tree.top as NSString).deletingLastPathComponent
        guard container.hasSuffix(Self.siblingSuffix) || (container as NSString).lastPathComponent == Self.insideDirectory else {
            throw GitError(.badRequest, "\(tree.top) is not a worktree the bridge made (under <repository>.worktrees)")
        }
        let mainCheckout = GitCheckout(tree: try GitWorkTree(top: main, directory: main, roots: roots), runner: runner)
        let config = try await mainCheckout.config(.user)
        let outcome = try await mainCheckout.git(["worktree", "remove"] + (force ? ["--force"] : []) + ["--", tree.top], config)
        guard outcome.status == 0 else {
            throw GitError(force ? .failed : .conflict, "git worktree remove: " + Self.reason(outcome))
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
