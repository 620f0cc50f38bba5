import BridgeProtocol
import ChildProcess
import ConfinedFiles
import Foundation

/// The uncommitted changes under a thread's directory: tracked files against `HEAD`, and files nobody added
/// yet (what an agent's commands create), as one unified diff.
///
/// git runs as the bridge's user, outside Codex's sandbox, in a repository the agent can write to. Nothing the
/// repository configures may run, so git runs like this (SECURITY.md explains each choice):
/// - an exact environment: no system or global config (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`),
///   `GIT_DIR` and `GIT_WORK_TREE` set from the `.git` found by walking up (so `core.worktree` in the
///   repository's config cannot point the diff at other files), no pager, no prompts, no optional locks;
/// - `--no-ext-diff --no-textconv` (no `diff.external`, no `diff.<driver>.command` or `.textconv`);
/// - `-c` overrides, which beat every config file: `core.fsmonitor=false`, `core.hooksPath=/dev/null`,
///   `protocol.allow=never` (a partial clone cannot fetch), `core.bare=false`, and for each filter driver any
///   config file defines, empty `clean`/`smudge`/`process` commands (git runs no filter whose command is
///   empty);
/// - untracked files are read by the bridge itself (regular files only, symbolic links shown as links), so no
///   temporary index or file is needed (each opened once, see ``NewFileDiff``); the size cap applies to everything before it is returned.
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
    /// - Throws: ``HubError`` when git fails or does not finish in time (never a silent empty diff).
    func diff(in directory: String) async throws -> String? {
        guard let git, let top = Self.repositoryTop(containing: directory) else { return nil }
        let environment = Self.environment(top: top)
        let run = { (arguments: [String], limit: Int) async -> ChildProcess.Outcome? in
            try? await ChildProcess.run(
                git, arguments: arguments, environment: environment, workingDirectory: directory, outputLimit: limit, timeout: timeout)
        }
        // Filter drivers named in any config file git reads here (the repository's, its includes).
        let names = await run(
            ["config", "--null", "--name-only", "--get-regexp", #"^filter\..*\.(clean|smudge|process|required)$"#], 1 << 20)
        let overrides = Self.overrides(filterKeys: names?.output ?? [])
        var base = "HEAD"
        if await run(overrides + ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], 4096)?.status != 0 {
            guard let empty = await run(overrides + ["hash-object", "-t", "tree", "/dev/null"], 4096), empty.status == 0 else {
                throw HubError(.internal, "git could not read the repository at \(top)")
            }
            base = empty.text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard
            let tracked = await run(
                overrides + ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--full-index", base, "--", "."], limit),
            tracked.status == 0 || tracked.truncated
        else {
            throw HubError(.internal, "git diff failed or took longer than \(timeout) in \(top)")
        }
        var out = tracked.output
        if tracked.truncated { return Self.truncatedText(out, limit: limit) }
        guard
            let listing = await run(overrides + ["ls-files", "-z", "--others", "--exclude-standard", "--full-name", "--", "."], 4 << 20),
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

    /// The nearest directory at or above `directory` holding a `.git` entry (a directory or a gitfile).
    static func repositoryTop(containing directory: String) -> String? {
        var url = URL(fileURLWithPath: directory, isDirectory: true).standardizedFileURL
        while true {
            var info = stat()
            if lstat(url.appendingPathComponent(".git").path, &info) == 0,
                (info.st_mode & S_IFMT) == S_IFDIR || (info.st_mode & S_IFMT) == S_IFREG
            {
                return url.path
            }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { return nil }
            url = parent
        }
    }

    /// The whole environment git gets.
    static func environment(top: String) -> [String: String] {
        [
            "PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LC_ALL": "C",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_ATTR_NOSYSTEM": "1",
            "GIT_DIR": top + "/.git", "GIT_WORK_TREE": top,
            "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "PAGER": "cat",
            "GIT_NO_REPLACE_OBJECTS": "1",
        ]
    }

    /// The `-c` arguments: fixed ones, plus empty commands for every filter driver named in `filterKeys`
    /// (NUL-separated `filter.<driver>.<key>` names).
    static func overrides(filterKeys: [UInt8]) -> [String] {
        var arguments = [
            "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat", "-c", "protocol.allow=never",
            "-c", "core.bare=false", "-c", "diff.external=", "-c", "core.untrackedCache=false",
        ]
        var drivers: Set<String> = []
        for key in filterKeys.split(separator: 0).map({ String(decoding: $0, as: UTF8.self) }) {
            // filter.<driver>.<key>: the driver name may itself contain dots.
            guard key.hasPrefix("filter."), let last = key.lastIndex(of: ".") else { continue }
            let driver = key[key.index(key.startIndex, offsetBy: 7)..<last]
            if !driver.isEmpty { drivers.insert(String(driver)) }
        }
        for driver in drivers.sorted() {
            for key in ["clean", "smudge", "process"] { arguments += ["-c", "filter.\(driver).\(key)="] }
            arguments += ["-c", "filter.\(driver).required=false"]
        }
        return arguments
    }

    static func truncatedText(_ bytes: [UInt8], limit: Int) -> String {
        String(decoding: bytes.prefix(limit), as: UTF8.self) + "\n# codex-bridge: diff truncated at \(limit) bytes\n"
    }
}
