import BridgeProtocol
import ChildProcess
import ConfinedFiles
import Foundation

/// The git requests (`gitStatus`, `gitCommit`, `gitBranch`, `gitSwitch`, `gitPush`, `gitPullRequest`), a worktree
/// per task (`startThread {worktree}`, `removeWorktree`) and the diff of a thread's uncommitted changes: the gate
/// admitted the thread (its directory inside the roots); git runs in that directory the one safe way
/// (``GitInvocation``). Runs in one repository happen one after another (no index lock races between phones).
///
/// Beside the hub, not in it: it uses no hub state, only the roots, and git and gh as found in its environment.
package actor GitService {
    /// The directories git may run in (a work tree's `.git` must lead to a repository of them).
    package nonisolated let roots: WorkspaceRoots
    /// git and gh for the git requests, found on the environment's `PATH`.
    let tools: GitTools
    /// The diff of a thread's uncommitted changes (git found on the bridge's own `PATH`).
    let workspaceDiff: WorkspaceDiff
    /// The last git request per work tree, which the next one waits for.
    private var tails: [String: Task<Void, Never>] = [:]

    /// - Parameter environment: where git and gh are found and the user environment they may use (tests: a home of
    ///   their own).
    package init(roots: WorkspaceRoots, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.roots = roots
        self.tools = GitTools(environment: environment)
        self.workspaceDiff = WorkspaceDiff(git: ChildProcess.which("git", path: ProcessInfo.processInfo.environment["PATH"]))
    }

    /// Runs `work` on the checkout of `cwd` (the thread's directory the gate admitted), after the runs already
    /// queued in the same repository.
    func inCheckout<T: Sendable>(_ cwd: String, _ work: @escaping @Sendable (GitCheckout) async throws -> T) async throws -> T {
        let checkout = try await Self.checkout(cwd, tools: tools, roots: roots)
        return try await serialized(checkout.tree.top) { try await work(checkout) }
    }

    package func status(_ threadId: String, cwd: String) async throws -> GitStatus {
        try await inCheckout(cwd) { [tools] checkout in try await Self.status(threadId, checkout, gh: tools.gh) }
    }

    package func commit(_ commit: GitCommit, cwd: String) async throws -> GitCommitted {
        let (sha, branch) = try await inCheckout(cwd) { try await $0.commit(message: commit.message, paths: commit.paths) }
        return GitCommitted(threadId: commit.threadId, sha: sha, branch: branch)
    }

    package func createBranch(_ branch: GitBranch, cwd: String) async throws {
        try await inCheckout(cwd) { try await $0.createBranch(branch.name, from: branch.from) }
    }

    package func switchBranch(_ change: GitSwitch, cwd: String) async throws {
        try await inCheckout(cwd) { try await $0.switchBranch(change.branch) }
    }

    package func push(_ push: GitPush, cwd: String) async throws -> GitPushed {
        let target = try await inCheckout(cwd) { try await $0.push(remote: push.remote, setUpstream: push.setUpstream ?? false) }
        return GitPushed(threadId: push.threadId, remote: target.remote, branch: target.destination)
    }

    package func pullRequest(_ request: GitPullRequest, cwd: String) async throws -> PullRequest {
        try await inCheckout(cwd) { [tools] checkout in try await Self.pullRequest(request, checkout, gh: tools.gh) }
    }

    static func status(_ threadId: String, _ checkout: GitCheckout, gh: GitHubCLI?) async throws -> GitStatus {
        let (report, truncated) = try await checkout.status()
        let files = report.files.map {
            GitStatus.File(path: $0.path, index: $0.index, worktree: $0.worktree, originalPath: $0.originalPath)
        }
        var pullRequest: String?
        var compareURL: String?
        let config = try await checkout.config(.push)
        if let (hosting, branch) = try await checkout.hostingRemote(config) {
            pullRequest = "compare"
            compareURL = hosting.compareURL(branch: branch, base: nil)
            if hosting.host == .github, let gh, await gh.isLoggedIn(hosting.hostname, in: checkout, config: config) {
                pullRequest = "gh"
            }
        }
        return GitStatus(
            threadId: threadId, branch: report.branch, head: report.head, upstream: report.upstream, ahead: report.ahead,
            behind: report.behind, files: files, truncated: truncated ? true : nil, root: checkout.tree.top,
            repository: checkout.tree.repository,
            pullRequest: pullRequest,
            compareUrl: compareURL,
            remotes: checkout.pushableRemotes(config))
    }

    /// Through `gh` when it is installed and logged in for the host; else the host's compare page.
    static func pullRequest(_ request: GitPullRequest, _ checkout: GitCheckout, gh: GitHubCLI?) async throws -> PullRequest {
        let title = request.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...256).contains(title.count), !title.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw GitError(.badRequest, "title must be 1 to 256 characters on one line")
        }
        let body = request.body ?? ""
        guard body.utf8.count <= 64 << 10 else { throw GitError(.badRequest, "body must be at most 64 KiB") }
        if let base = request.base, !GitRefName.isValidBranch(base) {
            throw GitError(.badRequest, "\(base.prefix(200)) is not a branch name")
        }
        let config = try await checkout.config(.push)
        guard let (hosting, branch) = try await checkout.hostingRemote(config) else {
            throw GitError(.badRequest, "the branch's remote is not on GitHub, GitLab or Bitbucket (or HEAD is detached)")
        }
        if hosting.host == .github, let gh, await gh.isLoggedIn(hosting.hostname, in: checkout, config: config) {
            let url = try await gh.createPullRequest(
                in: checkout, config: config, hosting: hosting, branch: branch, title: title, body: body, base: request.base)
            return PullRequest(threadId: request.threadId, url: url, created: true)
        }
        return PullRequest(threadId: request.threadId, url: hosting.compareURL(branch: branch, base: request.base), created: false)
    }

    // MARK: Worktrees

    /// The directory a `startThread {worktree}` runs in: a new worktree on a new branch (its place inside the
    /// roots, checked again once git made it; see ``GitCheckout/addWorktree(branch:from:roots:)``).
    package func worktreeDirectory(for request: WorktreeRequest, cwd: String) async throws -> String {
        let roots = roots
        let checkout = try await Self.checkout(cwd, tools: tools, roots: roots)
        return try await serialized(checkout.tree.top) {
            try await checkout.addWorktree(branch: request.branch, from: request.from, roots: roots)
        }
    }

    /// Removes the worktree holding `cwd` (one the bridge made); → its top.
    package func removeWorktree(cwd: String, force: Bool) async throws -> String {
        let roots = roots
        let checkout = try await Self.checkout(cwd, tools: tools, roots: roots)
        try await serialized(checkout.tree.top) {
            try await checkout.removeWorktree(force: force, roots: roots)
        }
        return checkout.tree.top
    }

    /// For each directory (as Codex reports it), the branch and main checkout when it is a linked worktree of a
    /// repository inside the roots. Off the actor: it looks at the file system.
    @concurrent
    package nonisolated static func worktreeFacts(of cwds: [String?], roots: WorkspaceRoots) async -> [(
        branch: String?, worktreeOf: String
    )?] {
        cwds.map { cwd in
            guard let cwd = cwd.flatMap(WorkspaceRoots.resolve), let top = GitWorkTree.repositoryTop(containing: cwd),
                let facts = GitWorktreeFacts(top: top), let main = facts.mainCheckout, roots.contains(resolved: main)
            else { return nil }
            return (facts.branch, main)
        }
    }

    /// The work tree holding `cwd`, found off the actor (it looks at the file system); its `.git` must lead to a
    /// repository of `roots` (``GitRepositoryLocation``).
    @concurrent
    nonisolated static func checkout(_ cwd: String, tools: GitTools, roots: WorkspaceRoots) async throws -> GitCheckout {
        try tools.checkout(cwd, roots: roots)
    }

    // MARK: Diffs

    /// The uncommitted changes under `cwd` (``WorkspaceDiff``); nil when it is not inside a git work tree or git is
    /// missing.
    package nonisolated func diff(in cwd: String) async throws -> String? {
        try await workspaceDiff.diff(in: cwd, roots: roots)
    }

    /// Runs `work` after every earlier git request in the same work tree has finished.
    private func serialized<T: Sendable>(_ key: String, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let previous = tails[key]
        let task = Task {
            await previous?.value
            return try await work()
        }
        let tail = Task<Void, Never> { _ = try? await task.value }
        tails[key] = tail
        defer { if tails[key] == tail { tails[key] = nil } }
        return try await task.value
    }
}
