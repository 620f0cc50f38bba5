import BridgeProtocol
import ChildProcess
import ConfinedFiles

/// The programs the bridge's git requests use, found once on the bridge's `PATH`: git (nil: not installed) and
/// GitHub's `gh` (nil: not installed), with the user's environment they may use.
struct GitTools: Sendable {
    var runner: GitRunner?
    var gh: GitHubCLI?

    init(environment: [String: String]) {
        let user = GitUserEnvironment(environment)
        runner = ChildProcess.which("git", path: environment["PATH"]).map { GitRunner(executable: $0, user: user) }
        gh = ChildProcess.which("gh", path: user.path).map { GitHubCLI(executable: $0) }
    }

    /// The checkout holding `directory` (resolved), its `.git` checked against `roots` (``GitRepositoryLocation``).
    /// - Throws: `failed` without git, `bad_request` outside a repository, `unsafe_repository` when its `.git`
    ///   leads elsewhere.
    func checkout(_ directory: String, roots: WorkspaceRoots) throws -> GitCheckout {
        guard let runner else { throw GitError(.failed, "git is not installed on the workstation") }
        guard let tree = try GitWorkTree.containing(directory, roots: roots) else {
            throw GitError(.badRequest, "\(directory) is not inside a git repository")
        }
        return GitCheckout(tree: tree, runner: runner)
    }
}
