import BridgeProtocol
import ChildProcess
import Foundation

/// GitHub's `gh`, when the user has it: creates pull requests. A program of the user's (trusted), but it runs git
/// in the repository itself: every git it starts gets the bridge's overrides through `GIT_CONFIG_COUNT`…, the
/// same as the bridge's own push (``GitInvocation/overrideEnvironment(trust:config:)``).
struct GitHubCLI: Sendable {
    /// `gh` (absolute).
    let executable: String

    /// The environment `gh` runs with in `checkout`.
    func environment(_ checkout: GitCheckout, config: GitConfigSnapshot) -> [String: String] {
        var environment = GitInvocation.environment(tree: checkout.tree, trust: .push, user: checkout.runner.user, config: config)
        environment.merge(GitInvocation.overrideEnvironment(trust: .push, config: config)) { $1 }
        environment.merge([
            "GH_PROMPT_DISABLED": "1", "GH_NO_UPDATE_NOTIFIER": "1", "GH_NO_EXTENSION_UPDATE_NOTIFIER": "1", "NO_COLOR": "1",
            "GH_PAGER": "cat", "GH_SPINNER_DISABLED": "1",
        ]) { $1 }
        return environment
    }

    /// Whether `gh` holds a login for `hostname` (read from its own files; no network).
    func isLoggedIn(_ hostname: String, in checkout: GitCheckout, config: GitConfigSnapshot) async -> Bool {
        let outcome = try? await ChildProcess.run(
            executable, arguments: ["auth", "token", "--hostname", hostname], environment: environment(checkout, config: config),
            workingDirectory: checkout.tree.directory, outputLimit: 4096, timeout: .seconds(10))
        return outcome?.status == 0
    }

    /// Creates the pull request of `branch` on `hosting`'s repository; → its URL.
    func createPullRequest(
        in checkout: GitCheckout, config: GitConfigSnapshot, hosting: GitHostingRemote, branch: String, title: String, body: String,
        base: String?
    ) async throws -> String {
        var arguments = [
            "pr", "create", "--repo", "\(hosting.hostname)/\(hosting.path)", "--head", branch, "--title", title, "--body", body,
        ]
        if let base { arguments += ["--base", base] }
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(
                executable, arguments: arguments, environment: environment(checkout, config: config),
                workingDirectory: checkout.tree.directory, includeStandardError: true, outputLimit: 1 << 20, timeout: .seconds(60))
        } catch {
            throw GitError(.failed, "gh cannot run: \(error)")
        }
        let url = outcome.text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .last { $0.hasPrefix("https://") && !$0.contains(" ") }
        guard outcome.status == 0, let url else { throw GitError(.failed, "gh pr create: " + GitCheckout.reason(outcome)) }
        return url
    }
}
