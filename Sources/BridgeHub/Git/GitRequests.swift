import BridgeProtocol

/// The git requests (`gitStatus`, `gitCommit`, `gitBranch`, `gitSwitch`, `gitPush`, `gitPullRequest`), the
/// commit-message helper and worktree removal: the gate admitted the thread (its directory inside the roots);
/// git runs in that directory the one safe way (``GitInvocation``), one run after another per repository.
struct GitRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.gitStatus) { (hub, ref: ThreadRef, context) in
            let status = try await hub.inCheckout(context.directory) { checkout in try await hub.gitStatus(ref.threadId, checkout) }
            return .gitStatus(status)
        }
        routes.on(.gitCommit) { (hub, commit: GitCommit, context) in
            let (sha, branch) = try await hub.inCheckout(context.directory) {
                try await $0.commit(message: commit.message, paths: commit.paths)
            }
            return .gitCommitted(GitCommitted(threadId: commit.threadId, sha: sha, branch: branch))
        }
        routes.on(.gitBranch) { (hub, branch: GitBranch, context) in
            try await hub.inCheckout(context.directory) { try await $0.createBranch(branch.name, from: branch.from) }
            return .gitBranched(GitBranched(threadId: branch.threadId, branch: branch.name))
        }
        routes.on(.gitSwitch) { (hub, change: GitSwitch, context) in
            try await hub.inCheckout(context.directory) { try await $0.switchBranch(change.branch) }
            return .gitBranched(GitBranched(threadId: change.threadId, branch: change.branch))
        }
        routes.on(.gitPush) { (hub, push: GitPush, context) in
            let target = try await hub.inCheckout(context.directory) {
                try await $0.push(remote: push.remote, setUpstream: push.setUpstream ?? false)
            }
            return .gitPushed(GitPushed(threadId: push.threadId, remote: target.remote, branch: target.destination))
        }
        routes.on(.gitPullRequest) { (hub, request: GitPullRequest, context) in
            .pullRequest(try await hub.inCheckout(context.directory) { checkout in try await hub.pullRequest(request, checkout) })
        }
        routes.on(.gitCommitMessage) { (hub, ref: ThreadRef, context) in
            .commitMessage(try await hub.writeCommitMessage(ref.threadId, cwd: context.directory))
        }
        routes.on(.removeWorktree) { (hub, remove: RemoveWorktree, context) in
            .accepted(try await hub.removeWorktree(remove, cwd: context.directory))
        }
    }
}
