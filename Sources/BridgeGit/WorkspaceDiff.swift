import BridgeProtocol
import ChildProcess
import ConfinedFiles
import Foundation

/// The uncommitted changes under a thread's directory: tracked files against `HEAD`, and files nobody added
/// yet (what an agent's commands create), as one unified diff.
///
/// git runs the bridge's one safe way (``GitInvocation``, trust `repositoryOnly`: no global configuration, so the
/// output does not depend on the user's settings), with `--no-ext-diff --no-textconv`; untracked files are read
/// by the bridge itself (regular files only, symbolic links shown as links), so no temporary index or file is
/// needed (each opened once, see ``NewFileDiff``); the size cap applies to everything before it is returned.
/// The diff covers only paths under the thread's directory (which the policy gate keeps inside a root).
struct WorkspaceDiff: Sendable {
    /// The git executable (absolute); nil: git is not installed, only Codex's own turn diffs are available.
    let git: String?
    /// Most bytes returned.
    let limit: Int
    /// Most untracked files shown.
    let maxUntrackedFiles: Int
    let timeout: Duration

    init(git: String?, limit: Int = 4 << 20, maxUntrackedFiles: Int = 1000, timeout: Duration = .seconds(30)) {
        self.git = git
        self.limit = limit
        self.maxUntrackedFiles = maxUntrackedFiles
        self.timeout = timeout
    }

    /// The diff under `directory` (resolved, absolute); nil when it is not inside a git work tree or git is
    /// missing.
    /// - Throws: ``GitError`` when git fails or does not finish in time (never a silent empty diff);
    ///   `unsafe_repository` when the work tree's `.git` leads to a repository the bridge may not use
    ///   (``GitRepositoryLocation``, checked against `roots`).
    func diff(in directory: String, roots: WorkspaceRoots) async throws -> String? {
        guard let git, let tree = try GitWorkTree.containing(directory, roots: roots) else { return nil }
        let top = tree.top
        let runner = GitRunner(executable: git, user: GitUserEnvironment([:]), timeout: timeout)
        guard let config = await runner.config(in: tree, trust: .repositoryOnly) else {
            throw GitError(.internal, "git could not read the configuration of the repository at \(top)")
        }
        if let refusal = GitInvocation.refusal(trust: .repositoryOnly, config: config) { throw GitError(.unsafeRepository, refusal) }
        let run = { (arguments: [String], limit: Int) async -> ChildProcess.Outcome? in
            try? await runner.run(arguments, in: tree, trust: .repositoryOnly, config: config, outputLimit: limit)
        }
        var base = "HEAD"
        if await run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], 4096)?.status != 0 {
            guard let empty = await run(["hash-object", "-t", "tree", "/dev/null"], 4096), empty.status == 0 else {
                throw GitError(.internal, "git could not read the repository at \(top)")
            }
            base = empty.text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard
            let tracked = await run(
                ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--full-index", base, "--", "."], limit),
            tracked.status == 0 || tracked.truncated
        else {
            throw GitError(.internal, "git diff failed or took longer than \(timeout) in \(top)")
        }
        var out = tracked.output
        if tracked.truncated { return Self.truncatedText(out, limit: limit) }
        guard
            let listing = await run(["ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--", "."], 4 << 20),
            listing.status == 0
        else { return String(decoding: out, as: UTF8.self) }
        let paths = listing.output.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.filter { !$0.hasSuffix("/") }
        guard let topDirectory = try? ConfinedDirectory.open(absolute: top) else { return String(decoding: out, as: UTF8.self) }
        for (index, path) in paths.sorted().enumerated() {
            if index == maxUntrackedFiles {
                out += Array("# codex-bridge: \(paths.count - maxUntrackedFiles) more untracked files not shown\n".utf8)
                break
            }
            guard let piece = NewFileDiff.render(path: path, top: topDirectory, budget: limit - out.count + 1) else { continue }
            out += piece
            if out.count > limit { return Self.truncatedText(out, limit: limit) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func truncatedText(_ bytes: [UInt8], limit: Int) -> String {
        String(decoding: bytes.prefix(limit), as: UTF8.self) + "\n# codex-bridge: diff truncated at \(limit) bytes\n"
    }
}
