import BridgeProtocol
import Foundation

/// The git requests (`gitStatus`, `gitCommit`, `gitBranch`, `gitSwitch`, `gitPush`, `gitPullRequest`): the gate
/// admitted the thread (its directory inside the roots); git runs in that directory the one safe way
/// (``GitInvocation``). Runs in one repository happen one after another (no index lock races between phones).
extension ThreadHub {
    /// Runs `work` on the checkout of `cwd` (the thread's directory the gate admitted), after the runs already
    /// queued in the same repository.
    func inCheckout<T: Sendable>(_ cwd: String, _ work: @escaping @Sendable (GitCheckout) async throws -> T) async throws -> T {
        let checkout = try await Self.checkout(cwd, tools: services.gitTools, roots: gate.roots)
        return try await serializedGit(checkout.tree.top) { try await work(checkout) }
    }

    func gitStatus(_ threadId: String, _ checkout: GitCheckout) async throws -> GitStatus {
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
            if hosting.host == .github, let gh = services.gitTools.gh, await gh.isLoggedIn(hosting.hostname, in: checkout, config: config) {
                pullRequest = "gh"
            }
        }
        return GitStatus(
            threadId: threadId, branch: report.branch, head: report.head, upstream: report.upstream, ahead: report.ahead,
            behind: report.behind, files: files, truncated: truncated ? true : nil, root: checkout.tree.top,
            repository: checkout.tree.repository,
            pullRequest: pullRequest,
            compareUrl: compareURL)
    }

    /// Through `gh` when it is installed and logged in for the host; else the host's compare page.
    func pullRequest(_ request: GitPullRequest, _ checkout: GitCheckout) async throws -> PullRequest {
        let title = request.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...256).contains(title.count), !title.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw HubError(.badRequest, "title must be 1 to 256 characters on one line")
        }
        let body = request.body ?? ""
        guard body.utf8.count <= 64 << 10 else { throw HubError(.badRequest, "body must be at most 64 KiB") }
        if let base = request.base, !GitRefName.isValidBranch(base) {
            throw HubError(.badRequest, "\(base.prefix(200)) is not a branch name")
        }
        let config = try await checkout.config(.push)
        guard let (hosting, branch) = try await checkout.hostingRemote(config) else {
            throw HubError(.badRequest, "the branch's remote is not on GitHub, GitLab or Bitbucket (or HEAD is detached)")
        }
        if hosting.host == .github, let gh = services.gitTools.gh, await gh.isLoggedIn(hosting.hostname, in: checkout, config: config) {
            let url = try await gh.createPullRequest(
                in: checkout, config: config, hosting: hosting, branch: branch, title: title, body: body, base: request.base)
            return PullRequest(threadId: request.threadId, url: url, created: true)
        }
        return PullRequest(threadId: request.threadId, url: hosting.compareURL(branch: branch, base: request.base), created: false)
    }

    /// Finds git and gh as they would be found in `environment` (tests: a home of their own).
    func useGitEnvironment(_ environment: [String: String]) {
        services.gitTools = GitTools(environment: environment)
    }

    /// Runs `work` after every earlier git request in the same work tree has finished.
    func serializedGit<T: Sendable>(_ key: String, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let previous = self.work.gitTails[key]
        let task = Task {
            await previous?.value
            return try await work()
        }
        let tail = Task<Void, Never> { _ = try? await task.value }
        self.work.gitTails[key] = tail
        defer { if self.work.gitTails[key] == tail { self.work.gitTails[key] = nil } }
        return try await task.value
    }
}
