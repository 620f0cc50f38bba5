import Foundation
import Testing

@testable import BridgeGit
@testable import BridgeHub

/// The pure parts of the git requests, without processes: porcelain v2, configuration listings, ref names, compare
/// URLs and the overrides every git run gets. Cost: microseconds.
@Suite struct GitValueTests {
    @Test func porcelainV2IsParsedWithBranchRenamesAndUntrackedFiles() {
        let output =
            "# branch.oid 1111111111111111111111111111111111111111\0# branch.head feature/x\0# branch.upstream origin/feature/x\0"
            + "# branch.ab +2 -1\0"
            + "1 .M N... 100644 100644 100644 aaaa aaaa src/a file.txt\0"
            + "2 R. N... 100644 100644 100644 bbbb bbbb R100 new name.txt\0old name.txt\0"
            + "u UU N... 100644 100644 100644 100644 cccc dddd eeee conflict.txt\0"
            + "? notes/new.md\0! ignored.log\0"
        let report = GitStatusReport(porcelain: Array(output.utf8))
        #expect(report.branch == "feature/x")
        #expect(report.head == "1111111111111111111111111111111111111111")
        #expect(report.upstream == "origin/feature/x")
        #expect(report.ahead == 2 && report.behind == 1)
        #expect(
            report.files == [
                .init(path: "src/a file.txt", index: ".", worktree: "M"),
                .init(path: "new name.txt", index: "R", worktree: ".", originalPath: "old name.txt"),
                .init(path: "conflict.txt", index: "U", worktree: "U"),
                .init(path: "notes/new.md", index: "?", worktree: "?"),
            ])
        let detached = GitStatusReport(porcelain: Array("# branch.oid (initial)\0# branch.head (detached)\0".utf8))
        #expect(detached.branch == nil && detached.head == nil && detached.upstream == nil && detached.ahead == 0)
    }

    @Test func configListingKeepsScopesAndFindsDriversAndTransports() {
        let listing =
            "global\0user.name\nAna\0local\0filter.lfs.clean\ngit-lfs clean -- %f\0local\0filter.evil.dotted.process\nx\0"
            + "local\0core.bare\0local\0protocol.ext.allow\nalways\0command\0credential.helper\n\0global\0core.askpass\n/usr/bin/ask\0"
        let config = GitConfigSnapshot(listing: Array(listing.utf8))
        #expect(config.entries.count == 6)  // not the command line's
        #expect(config.value("core.bare") == "true")
        #expect(config.value("USER.NAME") == "Ana")
        #expect(config.filterDrivers == ["lfs", "evil.dotted"])
        #expect(config.filterKey("evil.dotted") == "filter.evil.dotted.process")
        #expect(config.protocolNames == ["ext"])
        #expect(config.globalValue("core.askPass") == "/usr/bin/ask")
        #expect(
            config.repositoryEntries.map(\.key) == ["filter.lfs.clean", "filter.evil.dotted.process", "core.bare", "protocol.ext.allow"])
    }

    @Test(arguments: ["main", "feature/x", "fix-1.2", "ana/wip_3", "ünïcode"])
    func validBranchNames(_ name: String) { #expect(GitRefName.isValidBranch(name)) }

    @Test(arguments: [
        "", "-f", "--upload-pack=x", "a..b", "a b", "a~1", "a^", "a:b", "a?", "a*", "a[b", "a\\b", "/a", "a/", "a//b", ".a", "a/.b",
        "a.lock", "a.", "@", "a@{1}", "HEAD", "a\u{7}b", String(repeating: "x", count: 201),
    ])
    func invalidBranchNames(_ name: String) { #expect(!GitRefName.isValidBranch(name)) }

    @Test func remoteNamesHaveNoSlash() {
        #expect(GitRefName.isValidRemote("origin") && GitRefName.isValidRemote("up-stream"))
        #expect(!GitRefName.isValidRemote("a/b") && !GitRefName.isValidRemote("-x"))
    }

    @Test(
        arguments: [
            ("git@github.com:ana/app.git", "feat/x", "main", "https://github.com/ana/app/compare/main...feat/x?expand=1"),
            ("https://tok:x-oauth@github.com/ana/app", "fix", nil, "https://github.com/ana/app/compare/fix?expand=1"),
            ("ssh://git@ssh.github.com:443/ana/app.git", "a b", nil, "https://github.com/ana/app/compare/a%20b?expand=1"),
            (
                "git@gitlab.com:group/sub/app.git", "feat/x", "main",
                "https://gitlab.com/group/sub/app/-/merge_requests/new?merge_request%5Bsource_branch%5D=feat%2Fx&merge_request%5Btarget_branch%5D=main"
            ),
            (
                "https://gitlab.example.org/team/app.git", "x", nil,
                "https://gitlab.example.org/team/app/-/merge_requests/new?merge_request%5Bsource_branch%5D=x"
            ),
            (
                "git@bitbucket.org:team/app.git", "feat/x", "dev",
                "https://bitbucket.org/team/app/pull-requests/new?source=feat%2Fx&dest=dev&t=1"
            ),
            ("https://github.example.com/org/app", "x", nil, "https://github.example.com/org/app/compare/x?expand=1"),
        ] as [(String, String, String?, String)])
    func compareURLs(_ remote: String, _ branch: String, _ base: String?, _ expected: String) throws {
        let hosting = try #require(GitHostingRemote(url: remote))
        #expect(hosting.compareURL(branch: branch, base: base) == expected)
    }

    @Test(arguments: [
        "/srv/git/app.git", "file:///srv/git/app.git", "https://example.com/ana/app.git", "git@github.com:app.git",
        "https://github.com/a/b/c", "ext::sh -c touch% /tmp/x", "https://github.com/../x",
    ])
    func remotesWithoutACompareURL(_ remote: String) { #expect(GitHostingRemote(url: remote) == nil) }

    @Test func everyRunOverridesWhatCouldRunAProgramAndAPushAddsTheUsersOwnCredentialSettings() throws {
        let tree = GitWorkTree(
            top: "/w/app", gitPath: "/w/app/.git", commonDirectory: "/w/app/.git", repository: "/w/app", directory: "/w/app/sub")
        let user = GitUserEnvironment([
            "HOME": "/home/ana", "PATH": "/home/ana/bin:relative:/usr/bin", "SSH_AUTH_SOCK": "/run/agent", "GIT_SSH": "/opt/my ssh",
            "GIT_DIR": "/elsewhere", "LD_PRELOAD": "/x.so",
        ])
        let listing =
            "local\0filter.crypt.smudge\nx\0local\0protocol.fd.allow\nalways\0local\0credential.helper\n!evil\0"
            + "global\0credential.https://github.com.helper\n!gh auth git-credential\0"
        let config = GitConfigSnapshot(listing: Array(listing.utf8))
        let local = GitInvocation.make(["status"], in: tree, trust: .user, user: user, config: config)
        let pairs = Self.overrides(local)
        for expected in [
            "core.fsmonitor=false", "core.hooksPath=/dev/null", "credential.helper=", "filter.crypt.smudge=", "filter.crypt.required=false",
            "protocol.fd.allow=never", "protocol.allow=never", "commit.gpgSign=false", "core.askPass=",
        ] {
            #expect(pairs.contains(expected), "\(expected)")
        }
        #expect(local.arguments == ["status"])
        #expect(local.environment["HOME"] == "/home/ana" && local.environment["PATH"] == "/usr/bin:/bin")
        #expect(local.environment["GIT_DIR"] == "/w/app/.git" && local.environment["GIT_WORK_TREE"] == "/w/app")
        #expect(local.environment["GIT_ALLOW_PROTOCOL"] == "none" && local.environment["SSH_AUTH_SOCK"] == nil)
        #expect(local.environment["LD_PRELOAD"] == nil && local.workingDirectory == "/w/app/sub")
        #expect(!pairs.contains { $0.hasPrefix("credential.https://github.com.helper") })

        let push = GitInvocation.make(["push"], in: tree, trust: .push, user: user, config: config)
        let pushPairs = Self.overrides(push)
        let reset = try #require(pushPairs.firstIndex(of: "credential.helper="))
        let global = try #require(pushPairs.firstIndex(of: "credential.https://github.com.helper=!gh auth git-credential"))
        #expect(reset < global && !pushPairs.contains("credential.helper=!evil"))
        #expect(pushPairs.contains("protocol.https.allow=always") && !pushPairs.contains("protocol.ext.allow=always"))
        #expect(push.environment["GIT_ALLOW_PROTOCOL"] == "file:https:ssh:git")
        #expect(push.environment["PATH"] == "/home/ana/bin:/usr/bin" && push.environment["SSH_AUTH_SOCK"] == "/run/agent")
        #expect(push.environment["GIT_SSH_COMMAND"] == "'/opt/my ssh'" && push.environment["GIT_PROXY_COMMAND"] == "")
        let diff = GitInvocation.make(["diff"], in: tree, trust: .repositoryOnly, user: user, config: config)
        #expect(diff.environment["HOME"] == "/nonexistent" && diff.environment["GIT_CONFIG_GLOBAL"] == "/dev/null")
    }

    /// Every configured key reaches git whole (`filter.a=b.clean` included); one git could not take through the
    /// environment is refused, never dropped.
    @Test func anOverrideGitCannotTakeIsRefusedNeverDropped() {
        let equals = GitConfigSnapshot(entries: [.init(scope: .local, key: "filter.a=b.clean", value: "x")])
        #expect(GitInvocation.refusal(trust: .user, config: equals) == nil)
        #expect(GitInvocation.overrides(trust: .user, config: equals).contains { $0.key == "filter.a=b.clean" && $0.value.isEmpty })
        for key in ["filter.a\nb.clean", "filter.a\u{0}b.clean"] {
            let config = GitConfigSnapshot(entries: [.init(scope: .local, key: key, value: "x")])
            #expect(GitInvocation.refusal(trust: .user, config: config) != nil, "\(key.debugDescription)")
        }
    }

    /// The `key=value` overrides an invocation gives git (`GIT_CONFIG_COUNT`…), in order.
    static func overrides(_ invocation: GitInvocation) -> [String] {
        let environment = invocation.environment
        return (0..<(Int(environment["GIT_CONFIG_COUNT"] ?? "") ?? 0)).map {
            "\(environment["GIT_CONFIG_KEY_\($0)"] ?? "?")=\(environment["GIT_CONFIG_VALUE_\($0)"] ?? "?")"
        }
    }
}
