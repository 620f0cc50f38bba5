import BridgeProtocol
import ChildProcess
import Foundation
import Testing

@testable import BridgeGit
@testable import BridgeHub

/// A repository (and its remote) that plants, for every key git could run a program from, a script that leaves a
/// marker file; the bridge's status, commit, branch, switch, push and diff run in it and no marker may appear.
/// Real git, no network. Cost: about 60 git processes, about a second.
@Suite(.timeLimit(.minutes(1))) struct GitHostileRepositoryTests {
    /// Plants everything in `fixture`'s repository and remote; → the scripts' directory.
    static func plant(_ fixture: GitFixture) throws {
        // First (the test's own git runs the planted hooks otherwise): a file with a filter and diff driver, committed before the drivers exist, and a branch where it differs
        // (switching there checks it out through the smudge filter).
        try fixture.write(".gitattributes", "*.dat filter=evil diff=evil merge=evil\n")
        try fixture.write("data.dat", "one\n")
        try fixture.git("-C", fixture.repository, "add", ".")
        try fixture.git("-C", fixture.repository, "commit", "-qm", "data")
        try fixture.git("-C", fixture.repository, "checkout", "-qb", "other")
        try fixture.write("data.dat", "two\n")
        try fixture.git("-C", fixture.repository, "commit", "-qam", "other data")
        try fixture.git("-C", fixture.repository, "checkout", "-q", "main")
        let bin = try GitFixture.make(fixture.directory + "/evil-bin")
        let names = [
            "fsmonitor", "pager", "pager-status", "editor", "sequence-editor", "ssh", "askpass", "git-proxy", "alternate-refs",
            "credential", "credential-url", "gpg", "gpg-ssh", "gpg-x509", "filter-clean", "filter-smudge", "filter-process",
            "textconv", "diff-command", "diff-external", "uploadpack", "receivepack", "include-pager", "include-if-ssh",
            "remote-alternate-refs", "merge-driver",
        ]
        for name in names { try fixture.script("\(bin)/\(name)", marker: name) }
        let hooks = try GitFixture.make(fixture.directory + "/evil-hooks")
        for hook in [
            "post-checkout", "post-commit", "pre-push", "post-index-change", "reference-transaction", "pre-auto-gc", "post-rewrite",
            "fsmonitor-watchman", "push-to-checkout",
        ] {
            try fixture.script("\(hooks)/\(hook)", marker: "hook-\(hook)")
            try fixture.script(fixture.repository + "/.git/hooks/\(hook)", marker: "git-hook-\(hook)")
        }
        for hook in ["pre-receive", "update", "post-receive", "post-update", "reference-transaction", "proc-receive", "push-to-checkout"] {
            try fixture.script(fixture.remote + "/hooks/\(hook)", marker: "remote-hook-\(hook)")
        }
        try fixture.git("-C", fixture.repository, "remote", "add", "evil", "ext::sh -c touch% \(fixture.markers)/ext")
        try fixture.git("-C", fixture.repository, "remote", "add", "fd", "fd::3")
        try """
        [core]
        \tpager = \(bin)/include-pager
        """.write(toFile: fixture.directory + "/included.inc", atomically: true, encoding: .utf8)
        try """
        [core]
        \tsshCommand = \(bin)/include-if-ssh
        """.write(toFile: fixture.directory + "/included-if.inc", atomically: true, encoding: .utf8)
        let config = """
            [core]
            \tfsmonitor = \(bin)/fsmonitor
            \thooksPath = \(hooks)
            \tpager = \(bin)/pager
            \teditor = \(bin)/editor
            \tsshCommand = \(bin)/ssh
            \taskPass = \(bin)/askpass
            \tgitProxy = \(bin)/git-proxy
            \talternateRefsCommand = \(bin)/alternate-refs
            \tworktree = \(fixture.directory)/evil-bin
            [sequence]
            \teditor = \(bin)/sequence-editor
            [pager]
            \tstatus = \(bin)/pager-status
            [credential]
            \thelper = \(bin)/credential
            [credential "file://"]
            \thelper = \(bin)/credential-url
            [commit]
            \tgpgSign = true
            [tag]
            \tgpgSign = true
            [push]
            \tgpgSign = true
            \trecurseSubmodules = on-demand
            [gpg]
            \tprogram = \(bin)/gpg
            [gpg "ssh"]
            \tprogram = \(bin)/gpg-ssh
            [gpg "x509"]
            \tprogram = \(bin)/gpg-x509
            [filter "evil"]
            \tclean = \(bin)/filter-clean
            \tsmudge = \(bin)/filter-smudge
            \tprocess = \(bin)/filter-process
            \trequired = true
            [diff]
            \texternal = \(bin)/diff-external
            [diff "evil"]
            \ttextconv = \(bin)/textconv
            \tcommand = \(bin)/diff-command
            [merge "evil"]
            \tdriver = \(bin)/merge-driver
            [remote "origin"]
            \tuploadpack = \(bin)/uploadpack
            \treceivepack = \(bin)/receivepack
            \tpush = +refs/heads/*:refs/heads/evil-*
            [protocol "ext"]
            \tallow = always
            [protocol "fd"]
            \tallow = always
            [protocol]
            \tallow = always
            [gc]
            \tauto = 1
            \tautoDetach = false
            [submodule]
            \trecurse = true
            [include]
            \tpath = \(fixture.directory)/included.inc
            [includeIf "gitdir:\(fixture.repository)/.git"]
            \tpath = \(fixture.directory)/included-if.inc

            """
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: fixture.repository + "/.git/config"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(config.utf8))
        try handle.close()
        // The remote: its own hooks above, an alternate so receive-pack would ask its alternateRefsCommand.
        let alternate = fixture.directory + "/alternate.git"
        try fixture.git("init", "-q", "--bare", alternate)
        try (alternate + "/objects\n").write(toFile: fixture.remote + "/objects/info/alternates", atomically: true, encoding: .utf8)
        try fixture.git("-C", fixture.remote, "config", "core.alternateRefsCommand", "\(bin)/remote-alternate-refs")
        try fixture.git("-C", fixture.remote, "config", "receive.denyCurrentBranch", "updateInstead")
    }

    @Test func nothingTheRepositoryOrItsRemoteConfiguresRuns() async throws {
        let fixture = try GitFixture()
        try Self.plant(fixture)
        let checkout = try fixture.checkout()
        // The configuration really says all this (so the overrides, not a typo, are what stop it).
        let config = try await checkout.config(.push)
        #expect(config.value("core.fsmonitor")?.hasSuffix("/fsmonitor") == true)
        #expect(config.value("core.pager")?.hasSuffix("/include-pager") == true)
        #expect(config.value("core.sshCommand")?.hasSuffix("/include-if-ssh") == true)
        #expect(config.filterDrivers == ["evil"])

        try fixture.write("tracked.txt", "changed\n")
        try fixture.write("new.txt", "new\n")
        let status = try await checkout.status().report
        #expect(status.branch == "main" && Set(status.files.map(\.path)) == ["tracked.txt", "new.txt"])
        #expect(
            try await WorkspaceDiff(git: "/usr/bin/git").diff(in: fixture.repository, roots: fixture.roots)?.contains("+changed") == true)
        let committed = try await checkout.commit(message: "hostile but harmless", paths: nil)
        let author = try fixture.git("-C", fixture.repository, "show", "-s", "--format=%an %G?", committed.sha)
        #expect(author == "Ana N")  // unsigned
        try await checkout.createBranch("feature", from: "other")
        try await checkout.switchBranch("main")
        try await checkout.switchBranch("other")
        try await checkout.switchBranch("main")
        let pushed = try await checkout.push(remote: nil, setUpstream: true)
        #expect(pushed.destination == "main")  // the explicit refspec, not the planted `push = … evil-*`
        let remoteHeads = try fixture.git("-C", fixture.remote, "for-each-ref", "--format=%(refname)")
        #expect(remoteHeads == "refs/heads/main")
        for remote in ["evil", "fd"] {
            #expect(await gitErrorCode { _ = try await checkout.push(remote: remote, setUpstream: true) } == "failed", "\(remote)")
        }
        // A commit of the filtered file itself is refused, naming the key.
        try fixture.write("data.dat", "changed\n")
        do {
            _ = try await checkout.commit(message: "data", paths: nil)
            Issue.record("committed through a planted filter")
        } catch let error as GitError {
            #expect(error.code == .unsafeRepository && error.message.contains("filter.evil."), "\(error.summary)")
        }
        #expect(fixture.touchedMarkers == [])
    }

    @Test func aPushUsesTheUsersCredentialHelperAndSshCommandNeverTheRepositorys() async throws {
        let fixture = try GitFixture()
        let bin = try GitFixture.make(fixture.directory + "/bin")
        try """
        #!/bin/sh
        touch \(fixture.markers)/global-credential-$1
        [ "$1" = get ] || exit 0
        echo username=ana
        # A password for example.com only: for example.org git would go on to the next helper.
        grep -q '^host=example.com$' && echo password=from-the-user
        exit 0
        """.write(toFile: bin + "/global-credential", atomically: true, encoding: .utf8)
        chmod(bin + "/global-credential", 0o755)
        try "#!/bin/sh\ntouch \(fixture.markers)/global-ssh\nexit 1\n".write(toFile: bin + "/global-ssh", atomically: true, encoding: .utf8)
        chmod(bin + "/global-ssh", 0o755)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: fixture.home + "/.gitconfig"))
        try handle.seekToEnd()
        try handle.write(
            contentsOf: Data("[credential]\n\thelper = \(bin)/global-credential\n[core]\n\tsshCommand = \(bin)/global-ssh\n".utf8))
        try handle.close()
        for name in ["repo-credential", "repo-credential-url", "repo-ssh"] { try fixture.script("\(bin)/\(name)", marker: name) }
        try fixture.git("-C", fixture.repository, "config", "--add", "credential.helper", "\(bin)/repo-credential")
        try fixture.git("-C", fixture.repository, "config", "credential.https://example.com.helper", "\(bin)/repo-credential-url")
        try fixture.git("-C", fixture.repository, "config", "core.sshCommand", "\(bin)/repo-ssh")
        try fixture.git("-C", fixture.repository, "remote", "add", "box", "ssh://git@127.0.0.1:1/srv/app.git")
        let checkout = try fixture.checkout()
        let config = try await checkout.config(.push)
        // What a push's credential lookup asks (git credential fill with the push's settings).
        let fill = try await checkout.runner.run(
            ["credential", "fill"], in: checkout.tree, trust: .push, config: config,
            standardInput: Array("protocol=https\nhost=example.com\n\n".utf8))
        #expect(fill.status == 0 && fill.text.contains("password=from-the-user"), "\(fill.text)")
        let partial = try await checkout.runner.run(
            ["credential", "fill"], in: checkout.tree, trust: .push, config: config,
            standardInput: Array("protocol=https\nhost=example.org\n\n".utf8))
        #expect(partial.status != 0)  // no other helper, no prompt
        // A push over ssh starts the user's ssh command (which fails here: no server), not the repository's.
        #expect(await gitErrorCode { _ = try await checkout.push(remote: "box", setUpstream: true) } == "failed")
        #expect(fixture.touchedMarkers == ["global-credential-get", "global-ssh"])
    }

    @Test func proxyAndTlsSettingsOfTheRepositoryStopAPush() async throws {
        let fixture = try GitFixture()
        try fixture.git("-C", fixture.repository, "config", "http.https://github.com/.sslVerify", "false")
        do {
            _ = try await fixture.checkout().push(remote: nil, setUpstream: true)
            Issue.record("pushed with the repository's TLS setting")
        } catch let error as GitError {
            #expect(error.code == .unsafeRepository && error.message.contains("http.https://github.com/.sslverify"), "\(error.summary)")
        }
        let refs = try fixture.git("-C", fixture.remote, "for-each-ref")
        #expect(refs.isEmpty)
    }
}
