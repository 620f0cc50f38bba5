import BridgeProtocol
import Foundation
import Logging

/// A worktree per task (`startThread {worktree}`, `removeWorktree`), and the `branch` / `worktreeOf` that answers and
/// `listThreads` carry for a thread in a linked worktree.
extension ThreadHub {
    /// The directory a `startThread {worktree}` runs in: a new worktree on a new branch (its place inside the
    /// roots, checked again once git made it; see ``GitCheckout/addWorktree(branch:from:roots:)``).
    func worktreeDirectory(for request: WorktreeRequest, cwd: String) async throws -> String {
        let roots = gate.roots
        let checkout = try await Self.checkout(cwd, tools: services.gitTools, roots: roots)
        return try await serializedGit(checkout.tree.top) {
            try await checkout.addWorktree(branch: request.branch, from: request.from, roots: roots)
        }
    }

    /// For each directory (as Codex reports it), the branch and main checkout when it is a linked worktree of a
    /// repository inside the roots. Off the actor: it looks at the file system.
    @concurrent
    nonisolated static func worktreeFacts(of cwds: [String?], roots: WorkspaceRoots) async -> [(branch: String?, worktreeOf: String)?] {
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

    func removeWorktree(_ remove: RemoveWorktree, cwd: String) async throws -> Accepted {
        if book.runningTurn(of: remove.threadId) != nil {
            throw HubError(.conflict, "a turn is running on thread \(remove.threadId); interrupt it or wait")
        }
        let roots = gate.roots
        let checkout = try await Self.checkout(cwd, tools: services.gitTools, roots: roots)
        try await serializedGit(checkout.tree.top) {
            try await checkout.removeWorktree(force: remove.force ?? false, roots: roots)
        }
        logger.info("Worktree removed", metadata: ["bridge.thread.id": "\(remove.threadId)", "bridge.worktree": "\(checkout.tree.top)"])
        return Accepted(threadId: remove.threadId)
    }
}
