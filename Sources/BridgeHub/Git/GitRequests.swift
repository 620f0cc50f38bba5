import BridgeGit
import BridgeProtocol
import Logging

/// The git requests (`gitStatus`, `gitCommit`, `gitBranch`, `gitSwitch`, `gitPush`, `gitPullRequest`), the
/// commit-message helper and worktree removal: the gate admitted the thread (its directory inside the roots);
/// the hub's ``GitService`` (BridgeGit) runs git in that directory the one safe way, one run after another per
/// repository.
struct GitRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.gitStatus) { (hub, ref: ThreadRef, context) in
            .gitStatus(try await hub.git.status(ref.threadId, cwd: context.directory))
        }
        routes.on(.gitCommit) { (hub, commit: GitCommit, context) in
            .gitCommitted(try await hub.git.commit(commit, cwd: context.directory))
        }
        routes.on(.gitBranch) { (hub, branch: GitBranch, context) in
            try await hub.git.createBranch(branch, cwd: context.directory)
            return .gitBranched(GitBranched(threadId: branch.threadId, branch: branch.name))
        }
        routes.on(.gitSwitch) { (hub, change: GitSwitch, context) in
            try await hub.git.switchBranch(change, cwd: context.directory)
            return .gitBranched(GitBranched(threadId: change.threadId, branch: change.branch))
        }
        routes.on(.gitPush) { (hub, push: GitPush, context) in
            .gitPushed(try await hub.git.push(push, cwd: context.directory))
        }
        routes.on(.gitPullRequest) { (hub, request: GitPullRequest, context) in
            .pullRequest(try await hub.git.pullRequest(request, cwd: context.directory))
        }
        routes.on(.gitCommitMessage) { (hub, ref: ThreadRef, context) in
            let diff = try await hub.git.diff(in: context.directory)
            return .commitMessage(try await hub.commitMessages.write(ref.threadId, cwd: context.directory, diff: diff))
        }
        routes.on(.removeWorktree) { (hub, remove: RemoveWorktree, context) in
            if hub.book.runningTurn(of: remove.threadId) != nil {
                throw HubError(.conflict, "a turn is running on thread \(remove.threadId); interrupt it or wait")
            }
            let top = try await hub.git.removeWorktree(cwd: context.directory, force: remove.force ?? false)
            hub.logger.info("Worktree removed", metadata: ["bridge.thread.id": "\(remove.threadId)", "bridge.worktree": "\(top)"])
            return .accepted(Accepted(threadId: remove.threadId))
        }
    }
}
