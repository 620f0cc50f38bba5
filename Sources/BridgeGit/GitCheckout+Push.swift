import BridgeProtocol
import ChildProcess
import Foundation

/// Pushing and pull requests. A push uses the user's own, trusted setup (global credential helpers, ssh command,
/// agent, proxies; ``GitInvocation/Trust/push``) and none of the repository's: its credential helpers, ssh or
/// proxy commands, `uploadpack`/`receivepack` programs and configured push refspecs are overridden, and
/// repository settings that would send the user's credentials elsewhere (proxies, TLS verification) are refused.
extension GitCheckout {
    /// Repository keys under `http.` a push refuses: they choose where the user's credentials go, and how they are
    /// checked (a URL-scoped one beats any override).
    static let refusedHTTPKeys: Set<String> = [
        "proxy", "proxyauthmethod", "proxysslcert", "proxysslkey", "proxysslcertpasswordprotected", "proxysslcainfo", "sslverify",
        "sslcert", "sslkey", "sslcertpasswordprotected", "sslcainfo", "sslcapath", "sslbackend", "pinnedpubkey", "extraheader",
        "cookiefile", "savecookies", "curloptresolve", "emptyauth", "followredirects", "delegation", "sslversion", "sslcipherlist",
        "schannelcheckrevoke", "schannelusesslcainfo",
    ]

    /// Where a push of the current branch goes.
    struct PushTarget: Sendable, Hashable {
        var branch: String
        var remote: String
        /// The remote branch.
        var destination: String
        /// Whether the branch has no upstream yet (the push sets it when asked).
        var setsUpstream: Bool
    }

    /// Pushes the current branch: to its upstream, else to `remote` (default `origin`) under its own name with
    /// `setUpstream`.
    func push(remote: String?, setUpstream: Bool) async throws -> PushTarget {
        let config = try await config(.push)
        try Self.checkPushSettings(config)
        let target = try await pushTarget(remote: remote, setUpstream: setUpstream, config)
        let url = try await pushURL(target.remote, config)
        var arguments = [
            "push", "--porcelain", "--no-verify", "--no-signed", "--recurse-submodules=no", "--receive-pack=" + receivePack(for: url),
        ]
        if target.setsUpstream { arguments.append("--set-upstream") }
        arguments += [target.remote, "refs/heads/\(target.branch):refs/heads/\(target.destination)"]
        let outcome = try await git(arguments, config, trust: .push, timeout: .seconds(120))
        guard outcome.status == 0 else { throw Self.pushFailure(outcome) }
        return target
    }

    /// Refuses repository settings a push cannot override: where credentials are sent and how TLS is checked.
    static func checkPushSettings(_ config: GitConfigSnapshot) throws {
        let refused = config.firstRepositoryEntry { entry in
            let key = entry.key.lowercased()
            if key.hasPrefix("http."), let name = key.split(separator: ".").last, refusedHTTPKeys.contains(String(name)) { return true }
            return key.hasPrefix("remote.") && key.hasSuffix(".proxy")
        }
        if let refused {
            throw GitError(
                .unsafeRepository,
                "the repository sets \(refused.key), which decides where your credentials go; a push from the phone will not use it (remove it, or push at the workstation)"
            )
        }
    }

    func pushTarget(remote: String?, setUpstream: Bool, _ config: GitConfigSnapshot) async throws -> PushTarget {
        guard let branch = try await currentBranch(config) else {
            throw GitError(.conflict, "HEAD is detached: switch to a branch before pushing")
        }
        if let remote, !GitRefName.isValidRemote(remote) { throw GitError(.badRequest, "\(remote.prefix(200)) is not a remote name") }
        let upstreamRemote = config.value("branch.\(branch).remote")
        let upstreamMerge = config.value("branch.\(branch).merge")
        let name = remote ?? upstreamRemote ?? "origin"
        guard name != "." else { throw GitError(.conflict, "branch \(branch) tracks a local branch; there is nothing to push to") }
        guard GitRefName.isValidRemote(name), config.value("remote.\(name).url") != nil || config.value("remote.\(name).pushurl") != nil
        else {
            // Asked for by name: the request names what is not there. Else the default has nowhere to go (a
            // repository made with `git init`): say how to add one.
            guard remote == nil else { throw GitError(.badRequest, "no remote \(name.prefix(200)) in this repository") }
            throw GitError(
                .noRemote,
                "this repository has no remote \(name.prefix(200)) to push to: add one at the workstation (git remote add \(name.prefix(200)) URL), then push again"
            )
        }
        if name == upstreamRemote, let merge = upstreamMerge, merge.hasPrefix("refs/heads/"),
            GitRefName.isValidBranch(String(merge.dropFirst(11)))
        {
            return PushTarget(branch: branch, remote: name, destination: String(merge.dropFirst(11)), setsUpstream: false)
        }
        guard upstreamRemote != nil || setUpstream else {
            throw GitError(
                .conflict, "branch \(branch) has no upstream: push with setUpstream to push it to \(name)/\(branch) and track it")
        }
        return PushTarget(branch: branch, remote: name, destination: branch, setsUpstream: upstreamRemote == nil && setUpstream)
    }

    /// The remotes a push can go to (those with a URL or a push URL), in the order the configuration lists them.
    func pushableRemotes(_ config: GitConfigSnapshot) -> [String] {
        var names: [String] = []
        for entry in config.entries {
            guard let (section, remote, name) = GitConfigSnapshot.split(entry.key), section == "remote", name == "url" || name == "pushurl",
                entry.value != nil, GitRefName.isValidRemote(remote), !names.contains(remote)
            else { continue }
            names.append(remote)
        }
        return names
    }

    /// The URL a push to `remote` goes to (`pushInsteadOf`/`insteadOf` applied). git pushes to every push URL
    /// of a remote, and the receive-pack program named is one for all of them: URLs on this machine and elsewhere
    /// together are `unsafe_repository` (the local one would get the plain program, and its repository's hooks
    /// would run).
    func pushURL(_ remote: String, _ config: GitConfigSnapshot) async throws -> String {
        let outcome = try await git(["remote", "get-url", "--push", "--all", "--", remote], config)
        guard outcome.status == 0 else { throw GitError(.badRequest, "no remote \(remote): " + Self.reason(outcome)) }
        let urls = outcome.text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let first = urls.first else { throw GitError(.badRequest, "remote \(remote) has no URL") }
        if let local = urls.first(where: Self.isLocal), let elsewhere = urls.first(where: { !Self.isLocal($0) }) {
            throw GitError(
                .unsafeRepository,
                "remote \(remote) pushes both to \(String(local.prefix(200))) on this machine and to \(String(elsewhere.prefix(200))); push at the workstation"
            )
        }
        return first
    }

    /// The remote's URL as git would use it (`insteadOf` rewriting applied).
    func remoteURL(_ remote: String, _ config: GitConfigSnapshot, push: Bool) async throws -> String {
        let outcome = try await git(["remote", "get-url"] + (push ? ["--push"] : []) + ["--", remote], config)
        guard outcome.status == 0 else { throw GitError(.badRequest, "no remote \(remote): " + Self.reason(outcome)) }
        return outcome.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The program a push runs for the other side. Over a local transport (a path or `file://`) git starts it on
    /// this machine, in the other repository, which configures its own hooks: they must not run either.
    func receivePack(for url: String) -> String {
        guard Self.isLocal(url) else { return "git-receive-pack" }
        let overrides = [
            "core.hooksPath=/dev/null", "core.fsmonitor=false", "core.alternateRefsCommand=", "receive.denyCurrentBranch=refuse",
            "receive.autogc=false", "gc.auto=0", "core.sshCommand=false",
        ]
        return
            ([GitInvocation.shellQuoted(runner.executable)] + overrides.flatMap { ["-c", GitInvocation.shellQuoted($0)] } + ["receive-pack"])
            .joined(separator: " ")
    }

    /// Whether git reaches `url` on this machine, decided exactly as git does (`transport.c`, `connect.c`): with
    /// `://`, only the `file` scheme (any other is a network transport or a helper the allow-list refuses);
    /// without, a path unless it is scp-like, which is a `:` with no `/` before it (`rem/r:1` is a path,
    /// `host:repo` and `[::1]:repo` are ssh).
    static func isLocal(_ url: String) -> Bool {
        if let separator = url.range(of: "://") { return url[..<separator.lowerBound].lowercased() == "file" }
        guard let colon = url.firstIndex(of: ":") else { return true }
        return url[..<colon].contains("/")
    }

    /// A failed push as one line: `conflict` when the remote refused the update as not a fast-forward (pull first),
    /// `failed` otherwise (authentication, network, a hook on the server), naming git's reason.
    static func pushFailure(_ outcome: ChildProcess.Outcome) -> GitError {
        let lines = outcome.text.split(whereSeparator: \.isNewline).map(String.init)
        // --porcelain: `!<TAB>from:to<TAB>[rejected] (reason)` for each refused ref.
        if let refused = lines.first(where: { $0.hasPrefix("!\t") }) {
            let summary = refused.split(separator: "\t").dropFirst(2).joined(separator: " ")
            if summary.contains("non-fast-forward") || summary.contains("fetch first") || summary.contains("stale info") {
                return GitError(.conflict, "push rejected: \(summary): the remote has commits this branch lacks; pull or rebase first")
            }
            return GitError(.failed, "push rejected: \(summary)")
        }
        return GitError(.failed, "git push: " + reason(outcome))
    }

    // MARK: Pull requests

    /// The code host of the branch's remote (its upstream's, else `origin`), when it is one the app knows.
    func hostingRemote(_ config: GitConfigSnapshot) async throws -> (remote: GitHostingRemote, branch: String)? {
        guard let branch = try await currentBranch(config) else { return nil }
        let name = config.value("branch.\(branch).remote").flatMap { GitRefName.isValidRemote($0) ? $0 : nil } ?? "origin"
        guard config.value("remote.\(name).url") != nil, let url = try? await remoteURL(name, config, push: false),
            let hosting = GitHostingRemote(url: url)
        else { return nil }
        return (hosting, branch)
    }
}
