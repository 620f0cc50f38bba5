import BridgeProtocol
import ChildProcess
import ConfinedFiles
import Foundation

/// The git operations a phone may ask for on a thread's work tree: status, commit, branch, switch (push and pull
/// requests in GitCheckout+Push.swift). Every run goes through ``GitRunner`` (``GitInvocation``'s overrides); what
/// cannot be neutralised is refused with `unsafe_repository` naming the key.
struct GitCheckout: Sendable {
    let runner: GitRunner
    let tree: GitWorkTree

    /// Most files a status lists.
    static let maxStatusFiles = 2000
    /// Longest commit message accepted.
    static let maxMessageBytes = 64 << 10
    /// Hooks that would shape or check a commit: a repository that has one relies on it.
    static let commitHooks = ["pre-commit", "prepare-commit-msg", "commit-msg"]

    init(tree: GitWorkTree, runner: GitRunner) {
        self.tree = tree
        self.runner = runner
    }

    /// The configuration as a run at `trust` sees it.
    func config(_ trust: GitInvocation.Trust) async throws -> GitConfigSnapshot {
        guard let config = await runner.config(in: tree, trust: trust) else {
            throw GitError(.failed, "git cannot read the repository at \(tree.top)")
        }
        return config
    }

    /// Runs `command` at `trust` from the top of the work tree, standard error joined to the output.
    func git(
        _ command: [String], _ config: GitConfigSnapshot, trust: GitInvocation.Trust = .user, input: [UInt8]? = nil,
        limit: Int = 1 << 20, timeout: Duration? = nil
    ) async throws -> ChildProcess.Outcome {
        do {
            return try await runner.run(
                command, in: tree, trust: trust, config: config, directory: tree.top, standardInput: input, includeStandardError: true,
                outputLimit: limit, timeout: timeout)
        } catch {
            throw GitError(.failed, "git cannot run: \(error)")
        }
    }

    // MARK: Status

    /// Branch, upstream, ahead/behind and the changed files under the thread's directory.
    func status() async throws -> (report: GitStatusReport, truncated: Bool) {
        let config = try await config(.user)
        let outcome = try await runner.run(
            [
                "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignore-submodules=all", "--",
                tree.relativeDirectory,
            ],
            in: tree, trust: .user, config: config, directory: tree.top, outputLimit: 16 << 20)
        guard outcome.status == 0 || outcome.truncated else {
            throw GitError(.failed, "git status failed in \(tree.top)")
        }
        var report = GitStatusReport(porcelain: outcome.output)
        let truncated = outcome.truncated || report.files.count > Self.maxStatusFiles
        report.files = Array(report.files.prefix(Self.maxStatusFiles))
        return (report, truncated)
    }

    /// The branch checked out; nil when `HEAD` is detached.
    func currentBranch(_ config: GitConfigSnapshot) async throws -> String? {
        let outcome = try await git(["symbolic-ref", "--quiet", "--short", "HEAD"], config)
        guard outcome.status == 0 else { return nil }
        let name = outcome.text.trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? nil : name
    }

    // MARK: Commit

    /// Commits everything changed under the thread's directory (or only `paths`, relative to the top) with the
    /// user's identity; no hook runs and nothing is signed.
    func commit(message: String, paths: [String]?) async throws -> (sha: String, branch: String?) {
        let message = message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !message.isEmpty, message.utf8.count <= Self.maxMessageBytes, !message.contains("\u{0}") else {
            throw GitError(.badRequest, "message must be 1 to \(Self.maxMessageBytes) bytes of text")
        }
        let pathspecs = try pathspecs(paths)
        let config = try await config(.user)
        try checkIdentity(config)
        try await checkHooks(config)
        let changed = try await changedPaths(pathspecs, config)
        guard !changed.isEmpty else { throw GitError(.badRequest, "nothing to commit under \(tree.directory)") }
        try await checkFilters(changed, config)
        let add = try await git(["add", "--all", "--"] + pathspecs, config)
        guard add.status == 0 else { throw GitError(.badRequest, "git add: " + Self.reason(add)) }
        let commit = try await git(
            ["commit", "--no-verify", "--no-gpg-sign", "--quiet", "--cleanup=whitespace", "--message", message, "--"] + pathspecs, config)
        guard commit.status == 0 else { throw GitError(.failed, "git commit: " + Self.reason(commit)) }
        let head = try await git(["rev-parse", "--verify", "HEAD^{commit}"], config)
        guard head.status == 0 else { throw GitError(.failed, "git commit: " + Self.reason(head)) }
        return (head.text.trimmingCharacters(in: .whitespacesAndNewlines), try await currentBranch(config))
    }

    /// The pathspecs (relative to the top; git reads them literally) of `paths`, each inside the thread's
    /// directory; the thread's directory itself when nil.
    func pathspecs(_ paths: [String]?) throws -> [String] {
        guard let paths else { return [tree.relativeDirectory] }
        guard (1...Self.maxStatusFiles).contains(paths.count) else {
            throw GitError(.badRequest, "paths must list 1 to \(Self.maxStatusFiles) files")
        }
        let directory = tree.relativeDirectory
        return try paths.map { path in
            let components = path.split(separator: "/", omittingEmptySubsequences: false)
            guard !path.isEmpty, path.utf8.count <= 4096, !path.hasPrefix("/"), !path.contains("\u{0}"),
                !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." || $0 == ".git" }),
                directory == "." || path.hasPrefix(directory + "/")
            else {
                throw GitError(.badRequest, "path \(path.prefix(200)) is not a file under the thread's directory (relative to \(tree.top))")
            }
            return path
        }
    }

    /// Paths under `pathspecs` that differ from `HEAD` or are new (what `add --all` would stage).
    func changedPaths(_ pathspecs: [String], _ config: GitConfigSnapshot) async throws -> [String] {
        let outcome = try await runner.run(
            ["status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=all", "--"] + pathspecs, in: tree,
            trust: .user, config: config, directory: tree.top, outputLimit: 64 << 20)
        guard outcome.status == 0 else { throw GitError(.failed, "git status failed in \(tree.top)") }
        return GitStatusReport(porcelain: outcome.output).files.flatMap { [$0.path] + ($0.originalPath.map { [$0] } ?? []) }
    }

    /// A commit needs an author and a committer, each a name and an email, from what git at the desk takes them
    /// from: the user's identity variables (`GIT_AUTHOR_*`, `GIT_COMMITTER_*`, `EMAIL`), then the configuration
    /// (git would otherwise guess one from the host).
    func checkIdentity(_ config: GitConfigSnapshot) throws {
        let variables = runner.user.identity
        func known(_ candidates: String?...) -> Bool { candidates.contains { $0.map { !$0.isEmpty } ?? false } }
        let name = config.value("user.name")
        let email = config.value("user.email")
        guard known(variables["GIT_AUTHOR_NAME"], config.value("author.name"), name),
            known(variables["GIT_AUTHOR_EMAIL"], config.value("author.email"), email, variables["EMAIL"]),
            known(variables["GIT_COMMITTER_NAME"], config.value("committer.name"), name),
            known(variables["GIT_COMMITTER_EMAIL"], config.value("committer.email"), email, variables["EMAIL"])
        else {
            throw GitError(
                .badRequest,
                #"git has no identity for commits: on the workstation run git config --global user.name "Your Name" and git config --global user.email you@example.com"#
            )
        }
    }

    /// Refuses when a hook would shape or check the commit: the bridge runs none, and the user relies on it.
    func checkHooks(_ config: GitConfigSnapshot) async throws {
        var directory: String
        if let configured = config.value("core.hooksPath"), !configured.isEmpty {
            directory = configured.hasPrefix("~/") ? (runner.user.home ?? "/nonexistent") + configured.dropFirst(1) : configured
            if !directory.hasPrefix("/") { directory = tree.top + "/" + directory }
        } else {
            let common = try await git(["rev-parse", "--path-format=absolute", "--git-common-dir"], config)
            guard common.status == 0 else { throw GitError(.failed, "git rev-parse: " + Self.reason(common)) }
            directory = common.text.trimmingCharacters(in: .whitespacesAndNewlines) + "/hooks"
        }
        // Looked at through one descriptor of the hooks directory: each hook opened once (without blocking on a
        // FIFO), its type and mode read from that descriptor. A link leading out of the directory counts as a hook.
        guard let resolved = WorkspaceRoots.resolve(directory), let hooks = try? ConfinedDirectory.open(absolute: resolved) else { return }
        for hook in Self.commitHooks {
            let path = directory + "/" + hook
            let present: Bool
            do {
                present = try hooks.file(hook).isExecutable
            } catch {
                present = error.code == .outside
            }
            guard present else { continue }
            throw GitError(
                .unsafeRepository,
                "this repository has a \(hook) hook (\(path)) and the bridge runs no repository programs: let Codex commit (it runs the hook in its sandbox), or commit at the workstation"
            )
        }
    }

    /// Refuses when a path to commit goes through a filter program (git-lfs, git-crypt, …): without it git would
    /// store the file as it is on disk, and the bridge runs no filter programs.
    func checkFilters(_ paths: [String], _ config: GitConfigSnapshot) async throws {
        let drivers = config.filterDrivers
        guard !drivers.isEmpty else { return }
        var input: [UInt8] = []
        for path in paths { input += Array(path.utf8) + [0] }
        let outcome = try await runner.run(
            ["check-attr", "-z", "--stdin", "filter"], in: tree, trust: .user, config: config, directory: tree.top, standardInput: input,
            outputLimit: 64 << 20)
        guard outcome.status == 0 else { throw GitError(.failed, "git check-attr failed in \(tree.top)") }
        let fields = outcome.output.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        var index = 0
        while index + 2 < fields.count {
            let (path, value) = (fields[index], fields[index + 2])
            index += 3
            guard drivers.contains(value) else { continue }
            throw GitError(
                .unsafeRepository,
                "\(path) goes through the filter program \(config.filterKey(value)) and the bridge runs no repository programs: let Codex commit, or commit at the workstation"
            )
        }
    }

    // MARK: Branches

    /// Creates branch `name` at `from` (else `HEAD`) and switches to it.
    func createBranch(_ name: String, from: String?) async throws {
        guard GitRefName.isValidBranch(name) else { throw GitError(.badRequest, "\(name.prefix(200)) is not a valid branch name") }
        let config = try await config(.user)
        if try await git(["rev-parse", "--verify", "--quiet", "refs/heads/" + name], config).status == 0 {
            throw GitError(.conflict, "branch \(name) already exists")
        }
        var start: [String] = []
        if let from {
            let commit = try await resolveCommit(from, config)
            start = [commit]
        }
        let outcome = try await git(["switch", "--no-recurse-submodules", "--quiet", "--create", name] + start, config)
        guard outcome.status == 0 else { throw GitError(.conflict, "git switch: " + Self.reason(outcome)) }
    }

    /// Switches to the existing branch `name`; git refuses when uncommitted changes would be overwritten.
    func switchBranch(_ name: String) async throws {
        guard GitRefName.isValidBranch(name) else { throw GitError(.badRequest, "\(name.prefix(200)) is not a valid branch name") }
        let config = try await config(.user)
        guard try await git(["rev-parse", "--verify", "--quiet", "refs/heads/" + name], config).status == 0 else {
            throw GitError(.notFound, "no branch \(name)")
        }
        let outcome = try await git(["switch", "--no-guess", "--no-recurse-submodules", "--quiet", name], config)
        guard outcome.status == 0 else { throw GitError(.conflict, "git switch: " + Self.reason(outcome)) }
    }

    /// The commit a branch, tag or commit name (never an expression or option) names.
    func resolveCommit(_ name: String, _ config: GitConfigSnapshot) async throws -> String {
        let isHash = (4...64).contains(name.count) && name.allSatisfy(\.isHexDigit)
        guard isHash || name == "HEAD" || GitRefName.isValidBranch(name) else {
            throw GitError(.badRequest, "\(name.prefix(200)) is not a branch, tag or commit")
        }
        let outcome = try await git(["rev-parse", "--verify", "--quiet", "--end-of-options", name + "^{commit}"], config)
        guard outcome.status == 0 else { throw GitError(.badRequest, "no branch, tag or commit \(name)") }
        return outcome.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: Messages

    /// git's own reason in one line: its last `fatal:`/`error:` line (else its last line), without the prefix
    /// and control characters, at most 300 characters.
    static func reason(_ outcome: ChildProcess.Outcome) -> String {
        if outcome.timedOut { return "git did not finish in time" }
        let lines = outcome.text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var line =
            lines.last { $0.hasPrefix("fatal:") || $0.hasPrefix("error:") } ?? lines.last
            ?? "git exited with status \(outcome.status ?? -1)"
        for prefix in ["fatal: ", "error: "] where line.hasPrefix(prefix) { line.removeFirst(prefix.count) }
        let clean = String(String.UnicodeScalarView(line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
        return String(clean.prefix(300))
    }
}
