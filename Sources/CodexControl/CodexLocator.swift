import Foundation
import Subprocess

/// Finds the `codex` executable: `--codex PATH`, then the config value, then `PATH`, then the PyPI package
/// `openai-codex-cli-bin` (`codex_cli_bin/bin/codex` inside a `.venv-codex` of one of ``searchRoots``, or the
/// virtualenv of the user's data directory, or what an isolated `python3 -I` imports).
///
/// Only places the user controls are searched: never the working directory or the state directory's parent
/// (`/tmp/.venv-codex` for `CODEX_BRIDGE_HOME=/tmp/x` is anyone's). A candidate found by searching must be
/// owned by the user or root and not writable by group or others, and so must its directory; otherwise it is
/// skipped (an explicit `--codex` that fails this is an error naming why).
public struct CodexLocator: Sendable {
    /// `--codex PATH` from the command line; when set, nothing else is tried.
    public var explicitPath: String?
    /// The `codex` path from the config file; when set (and no explicit path), nothing else is tried.
    public var configuredPath: String?
    /// The environment to read `PATH`, `HOME` and `CODEX_BRIDGE_HOME` from.
    public var environment: [String: String]
    /// Directories that may hold a `.venv-codex` made by `Scripts/run`, and nothing else: the bridge passes
    /// ``checkoutRoots`` (the checkout it was built in); a test passes its own, so a checkout's `.venv-codex`
    /// never decides what a test finds.
    public var searchRoots: [String]
    /// Whether to ask `python3 -c "import codex_cli_bin"` as the last resort.
    public var askPython: Bool

    /// The message of the `unavailable` error when nothing is found.
    public static let installHint =
        "Codex CLI not found. Install it with `pip install openai-codex-cli-bin` (or run `Scripts/run`, which "
        + "installs it into .venv-codex), put `codex` on PATH, or pass --codex PATH."

    /// Creates a locator; by default it reads this process's environment.
    public init(
        explicitPath: String? = nil,
        configuredPath: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        searchRoots: [String] = [],
        askPython: Bool = true
    ) {
        self.explicitPath = explicitPath
        self.configuredPath = configuredPath
        self.environment = environment
        self.searchRoots = searchRoots
        self.askPython = askPython
    }

    /// The absolute path of an executable `codex`.
    /// - Throws: `CodexError` `.unavailable` whose message says how to install Codex (or what is wrong with
    ///   the explicit or configured path).
    public func locate() async throws(CodexError) -> String {
        if let explicitPath, !explicitPath.isEmpty {
            return try Self.checked(explicitPath, source: "--codex")
        }
        if let configuredPath, !configuredPath.isEmpty {
            return try Self.checked(configuredPath, source: "the config file's codex path")
        }
        // Absolute PATH entries only: a relative one (`.`) means the working directory.
        for directory in (environment["PATH"] ?? "").split(separator: ":") where directory.hasPrefix("/") {
            let candidate = "\(directory)/codex"
            if Self.isExecutable(candidate), Self.trustProblem(candidate) == nil { return candidate }
        }
        for venv in virtualenvCandidates() {
            if let found = Self.bundledCodex(inVirtualenv: venv), Self.trustProblem(found) == nil { return found }
        }
        if askPython, let found = await Self.askPythonForCodex(environment: environment) { return found }
        throw .unavailable(Self.installHint)
    }

    /// The running executable's directory and its five ancestors: for a binary in `.build/debug`, the checkout
    /// it was built in, where `Scripts/run` makes `.venv-codex`.
    public static var checkoutRoots: [String] {
        guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return [] }
        var roots: [String] = []
        var url = URL(fileURLWithPath: executable).deletingLastPathComponent()
        for _ in 0..<6 {
            roots.append(url.path)
            url = url.deletingLastPathComponent()
        }
        return roots
    }

    /// Virtualenvs that `Scripts/run` or a user may have made, most specific first.
    func virtualenvCandidates() -> [String] {
        var candidates = searchRoots.map { URL(fileURLWithPath: $0).appendingPathComponent(".venv-codex").path }
        if let home = environment["HOME"], !home.isEmpty {
            candidates.append("\(home)/.local/share/codex-bridge/venv")
        }
        var seen = Set<String>()
        return candidates.filter { seen.insert($0).inserted }
    }

    /// `<venv>/lib/python3.*/site-packages/codex_cli_bin/bin/codex`, if present.
    static func bundledCodex(inVirtualenv venv: String) -> String? {
        let lib = "\(venv)/lib"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: lib) else { return nil }
        for entry in entries.sorted().reversed() where entry.hasPrefix("python") {
            let candidate = "\(lib)/\(entry)/site-packages/codex_cli_bin/bin/codex"
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }

    private static func askPythonForCodex(environment: [String: String]) async -> String? {
        let script = "import codex_cli_bin; print(codex_cli_bin.bundled_codex_path())"
        do {
            let result = try await withCodexTimeout(.seconds(15), "python3 did not answer") {
                // -I: isolated; neither the working directory nor PYTHON* variables reach sys.path.
                try await Subprocess.run(
                    .name("python3"),
                    arguments: ["-I", "-c", script],
                    input: .none,
                    output: .string(limit: 64 * 1024),
                    error: .discarded
                )
            }
            guard result.terminationStatus.isSuccess,
                case let path = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines),
                isExecutable(path), trustProblem(path) == nil
            else { return nil }
            return path
        } catch {
            return nil
        }
    }

    private static func checked(_ path: String, source: String) throws(CodexError) -> String {
        guard isExecutable(path) else {
            throw .unavailable("\(source) names \(path), which is not an executable file. \(installHint)")
        }
        let resolved = absolute(path)
        if let problem = trustProblem(resolved) {
            throw .unavailable("\(source) names \(resolved), which is not run: \(problem)")
        }
        return resolved
    }

    /// Why a candidate must not be run: it (after following links) or its directory, or the directory of any
    /// link on the way to it, is not owned by this user or root, or is writable by group or others (anyone who
    /// can write one of them chooses what the bridge runs, e.g. by swapping a link between check and exec).
    public static func trustProblem(_ path: String) -> String? {
        var checked: [String] = []
        // Each link on the way: the directory holding it decides who may repoint it.
        var item = absolute(path)
        for _ in 0..<32 {
            let directory = (item as NSString).deletingLastPathComponent
            checked.append(directory)
            var info = stat()
            guard lstat(item, &info) == 0 else { return "\(item) cannot be read" }
            guard info.st_mode & S_IFMT == S_IFLNK else { break }
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: item) else {
                return "\(item) cannot be read"
            }
            item = destination.hasPrefix("/") ? destination : (directory as NSString).appendingPathComponent(destination)
        }
        guard let real = realpath(path, nil) else { return "it does not resolve" }
        let resolved = String(cString: real)
        free(real)
        checked += [resolved, (resolved as NSString).deletingLastPathComponent]
        let me = getuid()
        for item in checked {
            var info = stat()
            guard stat(item, &info) == 0 else { return "\(item) cannot be read" }
            if info.st_uid != me && info.st_uid != 0 { return "\(item) is owned by another user (uid \(info.st_uid))" }
            if info.st_mode & 0o022 != 0 {
                return "\(item) is writable by group or others (mode \(String(info.st_mode & 0o777, radix: 8)))"
            }
        }
        return nil
    }

    static func isExecutable(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
