import BridgeProtocol
import ChildProcess
import Foundation
import Testing

@testable import BridgeGit
@testable import BridgeHub

/// Issue 31's git rules, each seen failing before its fix: a filter driver whose name holds `=` (finding 3), a push
/// to a local path with a `:` (finding 4), and the user's `GIT_CONFIG_GLOBAL` and identity variables (finding 10).
/// Real git, no network. Cost: about 50 git processes, under a second.
@Suite(.timeLimit(.minutes(1))) struct GitEscapeTests {
    /// `-c filter.a=b.clean=` is split by git at the first `=`: the override never reached git, and status and diff
    /// ran the repository's clean filter. Seen failing: markers `clean` (status, diff).
    @Test func aFilterDriverWithAnEqualsSignInItsNameRunsNothing() async throws {
        let fixture = try GitFixture()
        try fixture.write(".gitattributes", "*.dat filter=a=b\n")
        try fixture.write("data.dat", "one\n")
        try fixture.git("-C", fixture.repository, "add", ".")
        try fixture.git("-C", fixture.repository, "commit", "-qm", "data")
        let bin = try GitFixture.make(fixture.directory + "/evil-bin")
        for name in ["clean", "smudge"] { try fixture.script("\(bin)/\(name)", marker: name) }
        try fixture.git("-C", fixture.repository, "config", "filter.a=b.clean", "\(bin)/clean")
        try fixture.git("-C", fixture.repository, "config", "filter.a=b.smudge", "\(bin)/smudge")
        try fixture.git("-C", fixture.repository, "config", "filter.a=b.required", "true")
        let checkout = try fixture.checkout()
        #expect(try await checkout.config(.user).filterDrivers == ["a=b"])
        try fixture.write("data.dat", "two\n")
        let status = try await checkout.status().report
        #expect(status.files.map(\.path) == ["data.dat"])
        #expect(try await WorkspaceDiff(git: "/usr/bin/git").diff(in: fixture.repository, roots: fixture.roots)?.contains("+two") == true)
        try await checkout.createBranch("side", from: nil)
        #expect(fixture.touchedMarkers == [])
        // Every override reaches git whatever its key: none is left on the command line for git to split.
        let invocation = GitInvocation.make(
            ["status"], in: checkout.tree, trust: .user, user: checkout.runner.user, config: try await checkout.config(.user))
        #expect(invocation.arguments == ["status"])
        let keys = (0..<(Int(invocation.environment["GIT_CONFIG_COUNT"] ?? "") ?? 0)).compactMap {
            invocation.environment["GIT_CONFIG_KEY_\($0)"]
        }
        #expect(keys.contains("filter.a=b.clean") && keys.contains("core.hooksPath"))
    }

    /// `rem/r:1` is a local path to git (a `/` before the first `:`), which starts `git-receive-pack` in it on this
    /// machine: it must get the overrides that keep the receiving repository's hooks from running. Seen failing:
    /// the remote's hooks left their markers.
    @Test func aPushToALocalPathWithAColonRunsNoHookOfTheReceivingRepository() async throws {
        let fixture = try GitFixture()
        let target = fixture.repository + "/rem/r:1"
        try fixture.git("init", "-q", "--bare", target)
        for hook in ["pre-receive", "update", "post-receive", "post-update", "reference-transaction"] {
            try fixture.script(target + "/hooks/\(hook)", marker: "remote-hook-\(hook)")
        }
        try fixture.git("-C", fixture.repository, "remote", "add", "colon", "rem/r:1")
        let checkout = try fixture.checkout()
        let pushed = try await checkout.push(remote: "colon", setUpstream: true)
        #expect(pushed.remote == "colon" && pushed.destination == "main")
        #expect(try fixture.git("--git-dir", target, "for-each-ref", "--format=%(refname)") == "refs/heads/main")
        #expect(fixture.touchedMarkers == [])
        // Locality exactly as git decides it.
        for local in ["rem/r:1", "/srv/r.git", "./r:2", "r", "file:///srv/r.git", "a/b:c/d"] {
            #expect(checkout.receivePack(for: local) != "git-receive-pack", "\(local)")
        }
        for remote in ["git@example.com:ana/app.git", "example.com:app", "ssh://example.com/app", "https://example.com/app", "[::1]:r"] {
            #expect(checkout.receivePack(for: remote) == "git-receive-pack", "\(remote)")
        }
    }

    /// git pushes to every push URL of a remote: one on this machine after one elsewhere must not get the plain
    /// receive-pack chosen for the first. "Elsewhere" is an ssh URL whose ssh (the user's `GIT_SSH_COMMAND`) runs
    /// the command here. Seen failing: the local target's hooks ran.
    @Test func aRemoteThatPushesHereAndElsewhereIsRefused() async throws {
        let fixture = try GitFixture()
        try fixture.git("init", "-q", "--bare", fixture.directory + "/elsewhere.git")
        let ssh = fixture.directory + "/loopback-ssh"
        try "#!/bin/sh\nshift\nexec sh -c \"$*\"\n".write(toFile: ssh, atomically: true, encoding: .utf8)
        chmod(ssh, 0o755)
        let target = fixture.directory + "/second.git"
        try fixture.git("init", "-q", "--bare", target)
        for hook in ["pre-receive", "update", "post-receive"] {
            try fixture.script(target + "/hooks/\(hook)", marker: "remote-hook-\(hook)")
        }
        let elsewhere = "ssh://example.invalid" + fixture.directory + "/elsewhere.git"
        try fixture.git("-C", fixture.repository, "remote", "add", "both", elsewhere)
        try fixture.git("-C", fixture.repository, "config", "--add", "remote.both.pushurl", elsewhere)
        try fixture.git("-C", fixture.repository, "config", "--add", "remote.both.pushurl", target)
        var environment = fixture.environment
        environment["GIT_SSH_COMMAND"] = ssh
        let checkout = try fixture.checkout(environment: environment)
        #expect(await gitErrorCode { _ = try await checkout.push(remote: "both", setUpstream: true) } == "unsafe_repository")
        #expect(fixture.touchedMarkers == [])
        #expect(try fixture.git("--git-dir", target, "for-each-ref") == "")
    }

    /// The user's `GIT_CONFIG_GLOBAL` and `GIT_AUTHOR_*`/`GIT_COMMITTER_*` are what git at the desk uses: a commit
    /// from the phone carries that identity. Seen failing: the commit had `~/.gitconfig`'s identity (Ana), and
    /// without one there the identity variables alone were refused.
    @Test func theUsersGlobalConfigFileAndIdentityVariablesAreHonoured() async throws {
        let fixture = try GitFixture()
        let desk = fixture.directory + "/desk.gitconfig"
        try "[user]\n\tname = Desk\n\temail = desk@example.com\n".write(toFile: desk, atomically: true, encoding: .utf8)
        var environment = fixture.environment
        environment["GIT_CONFIG_GLOBAL"] = desk
        let checkout = try fixture.checkout(environment: environment)
        try fixture.write("tracked.txt", "desk\n")
        let first = try await checkout.commit(message: "From the desk's config", paths: nil)
        #expect(
            try fixture.git("-C", fixture.repository, "show", "-s", "--format=%an <%ae> %cn <%ce>", first.sha)
                == "Desk <desk@example.com> Desk <desk@example.com>")

        let bare = try GitFixture(identity: false)
        var identity = bare.environment
        identity.merge([
            "GIT_AUTHOR_NAME": "Bea", "GIT_AUTHOR_EMAIL": "bea@example.com", "GIT_COMMITTER_NAME": "Cy",
            "GIT_COMMITTER_EMAIL": "cy@example.com",
        ]) { $1 }
        let named = try bare.checkout(environment: identity)
        try bare.write("tracked.txt", "named\n")
        let second = try await named.commit(message: "From the variables", paths: nil)
        #expect(
            try bare.git("-C", bare.repository, "show", "-s", "--format=%an <%ae> %cn <%ce>", second.sha)
                == "Bea <bea@example.com> Cy <cy@example.com>")

        // Never for output that must not depend on the user's settings.
        let user = GitUserEnvironment(identity.merging(["GIT_CONFIG_GLOBAL": desk]) { $1 })
        let diff = GitInvocation.environment(tree: named.tree, trust: .repositoryOnly, user: user, config: nil)
        #expect(diff["GIT_CONFIG_GLOBAL"] == "/dev/null" && diff["GIT_AUTHOR_NAME"] == nil && diff["GIT_COMMITTER_EMAIL"] == nil)
    }
}
