import BridgeProtocol
import Foundation
import Testing

@testable import BridgeHub

/// The git requests through the hub (fake Codex, real git): the gate first, then one answer per request, once per
/// request id. Cost: a few dozen git processes.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubGitTests {
    @Test func gitRequestsRunInTheThreadsRepositoryAndOnlyInsideTheRoots() async throws {
        let harness = try await HubHarness()
        let fixture = try GitFixture(base: harness.root + "/git")
        await harness.hub.useGitEnvironment(fixture.environment)
        harness.codexKnowsThread("t1", cwd: fixture.repository)
        let phone = await harness.session(deviceId: "d1")
        try fixture.write("new.txt", "new\n")
        guard case .response(_, .gitStatus(let status)) = await harness.request(.gitStatus(ThreadRef(threadId: "t1")), phone) else {
            Issue.record("no status")
            return
        }
        #expect(status.branch == "main" && status.root == fixture.repository && status.files.map(\.path) == ["new.txt"])
        #expect(status.pullRequest == nil)  // a file:// remote is on no code host
        let commit = BridgeRequest.gitCommit(GitCommit(threadId: "t1", message: "Add new"))
        let first = await harness.request(commit, phone, id: "c1")
        guard case .response(_, .gitCommitted(let committed)) = first else {
            Issue.record("not committed: \(first)")
            return
        }
        #expect(committed.branch == "main" && committed.sha.count == 40)
        // The same request id again: the first answer, no second commit.
        #expect(await harness.request(commit, phone, id: "c1") == first)
        #expect(try fixture.git("-C", fixture.repository, "rev-list", "--count", "HEAD") == "2")
        let pushed = await harness.request(.gitPush(GitPush(threadId: "t1", setUpstream: true)), phone)
        #expect(pushed == .response(id: pushed.answerId ?? "", .gitPushed(GitPushed(threadId: "t1", remote: "origin", branch: "main"))))
        let branched = await harness.request(.gitBranch(GitBranch(threadId: "t1", name: "topic")), phone)
        #expect(branched.errorCode == nil)
        #expect(await harness.request(.gitBranch(GitBranch(threadId: "t1", name: "topic")), phone).errorCode == .conflict)
        #expect(await harness.request(.gitSwitch(GitSwitch(threadId: "t1", branch: "main")), phone).errorCode == nil)

        // A thread whose directory is a repository outside the roots: refused before git runs.
        let outside = try GitFixture(base: harness.outside + "/git")
        try outside.write("secret.txt", "x\n")
        harness.codexKnowsThread("foreign", cwd: outside.repository)
        for request: BridgeRequest in [
            .gitStatus(ThreadRef(threadId: "foreign")), .gitCommit(GitCommit(threadId: "foreign", message: "m")),
            .gitBranch(GitBranch(threadId: "foreign", name: "x")), .gitSwitch(GitSwitch(threadId: "foreign", branch: "main")),
            .gitPush(GitPush(threadId: "foreign", setUpstream: true)), .gitPullRequest(GitPullRequest(threadId: "foreign", title: "t")),
            .gitCommitMessage(ThreadRef(threadId: "foreign")),
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
