import BridgeProtocol
import ChildProcess

/// Runs git the one way the bridge does (``GitInvocation``): the executable, the user's environment it may use,
/// and a deadline per run.
struct GitRunner: Sendable {
    /// The git executable (absolute).
    let executable: String
    let user: GitUserEnvironment
    let timeout: Duration

    init(executable: String, user: GitUserEnvironment, timeout: Duration = .seconds(30)) {
        self.executable = executable
        self.user = user
        self.timeout = timeout
    }

    /// What the configuration files visible at `trust` say (nil when git could not read them).
    func config(in tree: GitWorkTree, trust: GitInvocation.Trust) async -> GitConfigSnapshot? {
        let invocation = GitInvocation.make(
            ["config", "--list", "--show-scope", "--null"], in: tree, trust: trust, user: user, config: nil)
        guard let outcome = try? await run(invocation, outputLimit: 4 << 20), outcome.succeeded else { return nil }
        return GitConfigSnapshot(listing: outcome.output)
    }

    /// Runs `command` in `tree` with every override `config` calls for.
    /// - Throws: `unsafe_repository` when an override cannot be given to git (``GitInvocation/refusal(trust:config:)``).
    func run(
        _ command: [String], in tree: GitWorkTree, trust: GitInvocation.Trust, config: GitConfigSnapshot, directory: String? = nil,
        standardInput: [UInt8]? = nil, includeStandardError: Bool = false, outputLimit: Int = 1 << 20, timeout: Duration? = nil
    ) async throws -> ChildProcess.Outcome {
        if let refusal = GitInvocation.refusal(trust: trust, config: config) { throw GitError(.unsafeRepository, refusal) }
        return try await run(
            GitInvocation.make(command, in: tree, trust: trust, user: user, config: config, directory: directory),
            standardInput: standardInput, includeStandardError: includeStandardError, outputLimit: outputLimit, timeout: timeout)
    }

    func run(
        _ invocation: GitInvocation, standardInput: [UInt8]? = nil, includeStandardError: Bool = false, outputLimit: Int = 1 << 20,
        timeout: Duration? = nil
    ) async throws -> ChildProcess.Outcome {
        try await ChildProcess.run(
            executable, arguments: invocation.arguments, environment: invocation.environment,
            workingDirectory: invocation.workingDirectory, standardInput: standardInput, includeStandardError: includeStandardError,
            outputLimit: outputLimit, timeout: timeout ?? self.timeout)
    }
}
