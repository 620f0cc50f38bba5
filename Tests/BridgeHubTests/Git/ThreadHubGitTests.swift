import BridgeProtocol
import ConfinedFiles
import Foundation
import Testing

@testable import BridgeHub

/// The git requests through the hub (fake Codex, real git): the gate first, then one answer per request, once per
/// request id. Cost: a few dozen git processes.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubGitTests {
    @Test func gitRequestsRunInTheThreadsRepositoryAndOnlyInsideTheRoots() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        let fixture = try GitFixture(base: directory.path + "/root/git")
        let harness = try await HubHarness(directory: directory, gitEnvironment: fixture.environment)
        harness.codexKnowsThread("t1", cwd: fixture.repository)
        let phone = await harness.session(deviceId: "d1", scopes: .all)
        try fixture.write("new.txt", "new\n")
        guard case .response(_, .gitStatus(let status)) = await harness.request(BridgeRequest(.gitStatus, ThreadRef(threadId: "t1")), phone)
        else {
            Issue.record("no status")
            return
        }
        #expect(status.branch == "main" && status.root == fixture.repository && status.files.map(\.path) == ["new.txt"])
        #expect(status.pullRequest == nil)  // a file:// remote is on no code host
        let commit = BridgeRequest(.gitCommit, GitCommit(threadId: "t1", message: "Add new"))
        let first = await harness.request(commit, phone, id: "c1")
        guard case .response(_, .gitCommitted(let committed)) = first else {
            Issue.record("not committed: \(first)")
            return
        }
        #expect(committed.branch == "main" && committed.sha.count == 40)
        // The same request id again: the first answer, no second commit.
        #expect(await harness.request(commit, phone, id: "c1") == first)
        #expect(try fixture.git("-C", fixture.repository, "rev-list", "--count", "HEAD") == "2")
        let pushed = await harness.request(BridgeRequest(.gitPush, GitPush(threadId: "t1", setUpstream: true)), phone)
        #expect(pushed == .response(id: pushed.answerId ?? "", .gitPushed(GitPushed(threadId: "t1", remote: "origin", branch: "main"))))
        let branched = await harness.request(BridgeRequest(.gitBranch, GitBranch(threadId: "t1", name: "topic")), phone)
        #expect(branched.errorCode == nil)
        #expect(await harness.request(BridgeRequest(.gitBranch, GitBranch(threadId: "t1", name: "topic")), phone).errorCode == .conflict)
        #expect(await harness.request(BridgeRequest(.gitSwitch, GitSwitch(threadId: "t1", branch: "main")), phone).errorCode == nil)

        // A thread whose directory is a repository outside the roots: refused before git runs.
        let outside = try GitFixture(base: harness.outside + "/git")
        try outside.write("secret.txt", "x\n")
        harness.codexKnowsThread("foreign", cwd: outside.repository)
        for request: BridgeRequest in [
            BridgeRequest(.gitStatus, ThreadRef(threadId: "foreign")),
            BridgeRequest(.gitCommit, GitCommit(threadId: "foreign", message: "m")),
            BridgeRequest(.gitBranch, GitBranch(threadId: "foreign", name: "x")),
            BridgeRequest(.gitSwitch, GitSwitch(threadId: "foreign", branch: "main")),
            BridgeRequest(.gitPush, GitPush(threadId: "foreign", setUpstream: true)),
            BridgeRequest(.gitPullRequest, GitPullRequest(threadId: "foreign", title: "t")),
            BridgeRequest(.gitCommitMessage, ThreadRef(threadId: "foreign")),
        ] {
            #expect(await harness.request(request, phone).errorCode == .forbiddenPath, "\(request.kind)")
        }
        #expect(try outside.git("-C", outside.repository, "status", "--porcelain") == "?? secret.txt")
    }
}

extension ServerMessage {
    /// The id an answer carries.
    var answerId: String? {
        switch self {
        case .response(let id, _): id
        case .error(let error): error.id
        default: nil
        }
    }
}

/// `gitPullRequest` with a stand-in `gh` on the bridge's PATH (GitHub's CLI is not installed here): it is asked
/// only when logged in, gets an explicit repository, head, title, body and base, and every git it starts gets the
/// bridge's overrides (a planted fsmonitor does not run). Without it, the compare page. Cost: a few processes.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubPullRequestTests {
    static func fakeGh(_ fixture: GitFixture, loggedIn: Bool) throws -> String {
        let bin = try GitFixture.make(fixture.directory + "/gh-bin")
        try """
        #!/bin/sh
        case "$1 $2" in
        "auth token") [ "\(loggedIn ? "yes" : "no")" = yes ] && echo gho_secret && exit 0; exit 1 ;;
        "pr create")
            printf '%s\\n' "$@" > \(fixture.directory)/gh-args
            git status --porcelain > /dev/null  # as gh does: git in the repository
            env | grep -c '^GIT_CONFIG_KEY_' > \(fixture.directory)/gh-overrides
            echo "Creating pull request for main into main in ana/app"
            echo "https://github.com/ana/app/pull/7" ;;
        esac
        """.write(toFile: bin + "/gh", atomically: true, encoding: .utf8)
        chmod(bin + "/gh", 0o755)
        return bin
    }

    @Test func ghCreatesThePullRequestWhenLoggedInElseTheComparePage() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        let fixture = try GitFixture(base: directory.path + "/root/git")
        try fixture.git("-C", fixture.repository, "remote", "set-url", "origin", "git@github.com:ana/app.git")
        try fixture.script(fixture.directory + "/evil-fsmonitor", marker: "fsmonitor")
        try fixture.git("-C", fixture.repository, "config", "core.fsmonitor", fixture.directory + "/evil-fsmonitor")
        let roots = try WorkspaceRoots([directory.path + "/root"])
        // The hub finds git and gh as its environment (given at its start) says: one hub per environment.
        func hub(_ environment: [String: String]) async throws -> (HubHarness, ClientSession) {
            let harness = try await HubHarness(policy: { _ in ThreadHub.Policy(roots: roots) }, gitEnvironment: environment)
            harness.codexKnowsThread("t1", cwd: fixture.repository)
            return (harness, await harness.session())
        }
        let request = BridgeRequest(.gitPullRequest, GitPullRequest(threadId: "t1", title: "Parse in UTC", body: "Why.", base: "main"))

        // No gh: the compare page.
        var (harness, phone) = try await hub(fixture.environment)
        guard case .response(_, .gitStatus(let plain)) = await harness.request(BridgeRequest(.gitStatus, ThreadRef(threadId: "t1")), phone)
        else {
            throw HubHarnessError.unexpected
        }
        #expect(plain.pullRequest == "compare" && plain.compareUrl == "https://github.com/ana/app/compare/main?expand=1")
        let compare = await harness.request(request, phone)
        #expect(
            compare
                == .response(
                    id: compare.answerId ?? "",
                    .pullRequest(
                        PullRequest(threadId: "t1", url: "https://github.com/ana/app/compare/main...main?expand=1", created: false))))

        // gh, not logged in: still the compare page, and gh was not asked to create anything.
        let loggedOut = try Self.fakeGh(fixture, loggedIn: false)
        (harness, phone) = try await hub(["HOME": fixture.home, "PATH": loggedOut + ":/usr/bin:/bin"])
        guard case .response(_, .pullRequest(let fallback)) = await harness.request(request, phone) else {
            throw HubHarnessError.unexpected
        }
        #expect(!fallback.created && !FileManager.default.fileExists(atPath: fixture.directory + "/gh-args"))

        let bin = try Self.fakeGh(fixture, loggedIn: true)
        (harness, phone) = try await hub(["HOME": fixture.home, "PATH": bin + ":/usr/bin:/bin"])
        guard case .response(_, .gitStatus(let status)) = await harness.request(BridgeRequest(.gitStatus, ThreadRef(threadId: "t1")), phone)
        else {
            throw HubHarnessError.unexpected
        }
        #expect(status.pullRequest == "gh")
        let created = await harness.request(request, phone)
        #expect(
            created
                == .response(
                    id: created.answerId ?? "",
                    .pullRequest(PullRequest(threadId: "t1", url: "https://github.com/ana/app/pull/7", created: true))))
        let arguments = try String(contentsOfFile: fixture.directory + "/gh-args", encoding: .utf8)
        #expect(
            arguments
                == "pr\ncreate\n--repo\ngithub.com/ana/app\n--head\nmain\n--title\nParse in UTC\n--body\nWhy.\n--base\nmain\n")
        let overrides = try String(contentsOfFile: fixture.directory + "/gh-overrides", encoding: .utf8)
        #expect((Int(overrides.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 20)
        #expect(fixture.touchedMarkers == [])
        #expect(
            await harness.request(BridgeRequest(.gitPullRequest, GitPullRequest(threadId: "t1", title: "two\nlines")), phone).errorCode
                == .badRequest)
    }
}
