import BridgeGit
import BridgeProtocol
import Logging

/// The git requests (`gitStatus`, `gitCommit`, `gitBranch`, `gitSwitch`, `gitPush`, `gitPullRequest`), the
/// commit-message helper and worktree removal: the gate admitted the thread (its directory inside the roots);
/// the hub's ``GitService`` (BridgeGit) runs git in that directory the one safe way, one run after another per
/// repository. They run beside the hub; `removeWorktree` asks it whether a turn runs (its lane keeps a
/// message from starting one meanwhile).
struct GitRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.gitStatus) { (services, ref: ThreadRef, context) in
            .gitStatus(try await services.git.status(ref.threadId, cwd: context.directory))
        }
        routes.on(.gitCommit) { (services, commit: GitCommit, context) in
            .gitCommitted(try await services.git.commit(commit, cwd: context.directory))
        }
        routes.on(.gitBranch) { (services, branch: GitBranch, context) in
            try await services.git.createBranch(branch, cwd: context.directory)
            return .gitBranched(GitBranched(threadId: branch.threadId, branch: branch.name))
        }
        routes.on(.gitSwitch) { (services, change: GitSwitch, context) in
            try await services.git.switchBranch(change, cwd: context.directory)
            return .gitBranched(GitBranched(threadId: change.threadId, branch: change.branch))
        }
        routes.on(.gitPush) { (services, push: GitPush, context) in
            .gitPushed(try await services.git.push(push, cwd: context.directory))
        }
        routes.on(.gitPullRequest) { (services, request: GitPullRequest, context) in
            .pullRequest(try await services.git.pullRequest(request, cwd: context.directory))
        }
        routes.on(.gitCommitMessage) { (services, ref: ThreadRef, context) in
            let diff = try await services.git.diff(in: context.directory)
            return .commitMessage(try await services.commitMessages.write(ref.threadId, cwd: context.directory, diff: diff))
        }
        routes.on(.removeWorktree) { (services, remove: RemoveWorktree, context) in
            if await services.hub.runningTurn(of: remove.threadId) != nil {
                throw HubError(.conflict, "a turn is running on thread \(remove.threadId); interrupt it or wait")
            }
            let top = try await services.git.removeWorktree(cwd: context.directory, force: remove.force ?? false)
            services.logger.info("Worktree removed", metadata: ["bridge.thread.id": "\(remove.threadId)", "bridge.worktree": "\(top)"])
            return .accepted(Accepted(threadId: remove.threadId))
        }
    }
}
