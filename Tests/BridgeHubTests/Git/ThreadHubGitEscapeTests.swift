import BridgeProtocol
import CodexControl
import ConfinedFiles
import Foundation
import Synchronization
import Testing

@testable import BridgeHub

/// Issue 31's repository escapes through the hub (fake Codex, real git), each seen failing before its fix: a `.git`
/// gitfile or `commondir` naming a repository outside the roots (finding 5), and a worktree container that is a
/// link or tracked content (finding 1). Cost: a few dozen git processes, about a second.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubGitEscapeTests {
    /// What the agent can write below its directory (a `.git` gitfile, a `commondir` in a `.git` directory) must not
    /// point the bridge's git at a repository outside the roots. Seen failing: the commit, branch and push landed in
    /// the outside repository, and the diff showed its files.
    @Test func aGitfileOrCommondirNamingARepositoryOutsideTheRootsIsRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        let fixture = try GitFixture(base: directory.path + "/root/git")
        let harness = try await HubHarness(directory: directory, gitEnvironment: fixture.environment)
        let outside = try GitFixture(base: harness.outside + "/git")
        try outside.write("secret.txt", "OUTSIDE-SECRET\n")
        try outside.git("-C", outside.repository, "add", ".")
        try outside.git("-C", outside.repository, "commit", "-qm", "secret")
        let before = try outside.git("-C", outside.repository, "rev-parse", "HEAD")
        let phone = await harness.session(deviceId: "d1", scopes: .all)

        let gitfile = try GitFixture.make(fixture.repository + "/gitfile")
        try "gitdir: \(outside.repository)/.git\n".write(toFile: gitfile + "/.git", atomically: true, encoding: .utf8)
        try fixture.write("mine.txt", "mine\n", in: gitfile)
        let commondir = try GitFixture.make(fixture.repository + "/commondir")
        try fixture.git("init", "-q", commondir)
        try (outside.repository + "/.git\n").write(toFile: commondir + "/.git/commondir", atomically: true, encoding: .utf8)
        try fixture.write("mine.txt", "mine\n", in: commondir)
        // A real linked worktree, inside the roots, of a repository outside them.
        let linked = harness.root + "/linked"
        try outside.git("-C", outside.repository, "worktree", "add", "-q", "-b", "linked", linked)
        try fixture.write("mine.txt", "mine\n", in: linked)
        for (thread, cwd) in [("gitfile", gitfile), ("commondir", commondir), ("linked", linked)] {
            harness.codexKnowsThread(thread, cwd: cwd)
            for request: BridgeRequest in [
                BridgeRequest(.gitStatus, ThreadRef(threadId: thread)),
                BridgeRequest(.gitCommit, GitCommit(threadId: thread, message: "m")),
                BridgeRequest(.gitBranch, GitBranch(threadId: thread, name: "escape")),
                BridgeRequest(.gitSwitch, GitSwitch(threadId: thread, branch: "main")),
                BridgeRequest(.gitPush, GitPush(threadId: thread, remote: "origin", setUpstream: true)),
            ] {
                let answer = await harness.request(request, phone)
                #expect(answer.errorCode == .unsafeRepository, "\(thread) \(request.kind): \(answer)")
            }
            let diff = await harness.request(BridgeRequest(.getDiff, ThreadRef(threadId: thread)), phone)
            #expect(diff.errorCode == .unsafeRepository && !"\(diff)".contains("OUTSIDE-SECRET"), "\(thread): \(diff)")
        }
        #expect(try outside.git("-C", outside.repository, "rev-parse", "HEAD") == before)
        #expect(try outside.git("-C", outside.repository, "branch", "--list", "escape") == "")
        #expect(try outside.git("--git-dir", outside.remote, "for-each-ref") == "")

        // The repository's own checkout, and the bridge's own worktree of it, say which repository they are.
        harness.codexKnowsThread("main", cwd: fixture.repository)
        guard
            case .response(_, .gitStatus(let status)) = await harness.request(BridgeRequest(.gitStatus, ThreadRef(threadId: "main")), phone)
        else {
            Issue.record("no status")
            return
        }
        #expect(status.root == fixture.repository && status.repository == fixture.repository)
        let worktree = harness.root + "/git/app.worktrees/task"
        try fixture.git("-C", fixture.repository, "worktree", "add", "-q", "-b", "task", worktree)
        harness.codexKnowsThread("task", cwd: worktree)
        guard
            case .response(_, .gitStatus(let inWorktree)) = await harness.request(
                BridgeRequest(.gitStatus, ThreadRef(threadId: "task")), phone)
        else {
            Issue.record("no status in the worktree")
            return
        }
        #expect(inWorktree.root == worktree && inWorktree.repository == fixture.repository && inWorktree.branch == "task")
    }

    /// A worktree container that is a link (committed, or written by the agent) must not take the checkout out of the
    /// roots, and one that is tracked content is not the bridge's to fill. Seen failing: git checked the
    /// repository out into the link's target and the thread started there.
    @Test func aWorktreeContainerThatIsALinkOrTrackedContentIsRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        let fixture = try GitFixture(base: directory.path + "/root/git")
        let roots = try WorkspaceRoots([fixture.repository])
        let harness = try await HubHarness(
            policy: { _ in ThreadHub.Policy(roots: roots) }, directory: directory, gitEnvironment: fixture.environment)
        let started = Mutex<[String]>([])
        harness.codex.on("thread/start") { params in
            started.withLock { $0.append(params["cwd"]?.stringValue ?? "") }
            return ["thread": ["id": "t1", "cwd": params["cwd"] ?? JSONValue.null]]
        }
        harness.codex.on("turn/start") { _ in ["turn": ["id": "turn-1"]] }
        let phone = await harness.session()
        func start(_ branch: String) async -> ServerMessage {
            await harness.request(
                BridgeRequest(
                    .startThread, StartThread(cwd: fixture.repository, prompt: "task", worktree: WorktreeRequest(branch: branch))), phone)
        }
        let plugin = try GitFixture.make(directory.path + "/home/.vim/plugin")
        try FileManager.default.createSymbolicLink(atPath: fixture.repository + "/.codex-worktrees", withDestinationPath: plugin)
        let linked = await start("linked")
        #expect(linked.errorCode == .unsafeRepository, "\(linked)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: plugin) == [])
        #expect(try fixture.git("-C", fixture.repository, "branch", "--list", "linked") == "")

        // A link to a directory inside the roots is refused as well: the container must be a plain directory.
        try FileManager.default.removeItem(atPath: fixture.repository + "/.codex-worktrees")
        let elsewhere = try GitFixture.make(fixture.repository + "/elsewhere")
        try FileManager.default.createSymbolicLink(atPath: fixture.repository + "/.codex-worktrees", withDestinationPath: elsewhere)
        #expect(await start("inside-link").errorCode == .unsafeRepository)
        try FileManager.default.removeItem(atPath: fixture.repository + "/.codex-worktrees")

        // Tracked content in the container's place.
        try fixture.write(".codex-worktrees/README", "committed\n")
        try fixture.git("-C", fixture.repository, "add", "--force", ".codex-worktrees/README")
        try fixture.git("-C", fixture.repository, "commit", "-qm", "tracked container")
        #expect(await start("tracked").errorCode == .unsafeRepository)
        #expect(started.withLock { $0 } == [])
        #expect(
            try fixture.git("-C", fixture.repository, "worktree", "list", "--porcelain").components(separatedBy: "worktree ").count == 2)
    }

    /// The thread's directory in the new worktree passes the same gate as any new thread: checked out from a commit
    /// where it is a link out of the roots, the worktree is removed again and no thread starts. Seen failing: the
    /// thread started in the link.
    @Test func aWorktreeWhoseDirectoryLeadsOutIsRemovedAgain() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        let fixture = try GitFixture(base: directory.path + "/root/git")
        let harness = try await HubHarness(directory: directory, gitEnvironment: fixture.environment)
        let started = Mutex<[String]>([])
        harness.codex.on("thread/start") { params in
            started.withLock { $0.append(params["cwd"]?.stringValue ?? "") }
            return ["thread": ["id": "t1", "cwd": params["cwd"] ?? JSONValue.null]]
        }
        harness.codex.on("turn/start") { _ in ["turn": ["id": "turn-1"]] }
        try fixture.write("sub/file.txt", "sub\n")
        try fixture.git("-C", fixture.repository, "add", ".")
        try fixture.git("-C", fixture.repository, "commit", "-qm", "sub")
        try fixture.git("-C", fixture.repository, "checkout", "-qb", "linky")
        try fixture.git("-C", fixture.repository, "rm", "-rq", "sub")
        try FileManager.default.createSymbolicLink(atPath: fixture.repository + "/sub", withDestinationPath: harness.outside)
        try fixture.git("-C", fixture.repository, "add", "sub")
        try fixture.git("-C", fixture.repository, "commit", "-qm", "sub is a link out")
        try fixture.git("-C", fixture.repository, "checkout", "-q", "main")
        let phone = await harness.session()
        let answer = await harness.request(
            BridgeRequest(
                .startThread,
                StartThread(cwd: fixture.repository + "/sub", prompt: "task", worktree: WorktreeRequest(branch: "task", from: "linky"))),
            phone)
        #expect(answer.errorCode == .forbiddenPath, "\(answer)")
        #expect(started.withLock { $0 } == [])
        #expect(!FileManager.default.fileExists(atPath: fixture.directory + "/app.worktrees/task"))
        #expect(try fixture.git("-C", fixture.repository, "branch", "--list", "task") == "")
        #expect(
            try fixture.git("-C", fixture.repository, "worktree", "list", "--porcelain").components(separatedBy: "worktree ").count == 2)
    }

    /// The next-to-the-repository container (`<repo>.worktrees`) is held to the same rule. Seen failing: the checkout
    /// went through the link.
    @Test func aSiblingWorktreeContainerThatIsALinkIsRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        let fixture = try GitFixture(base: directory.path + "/root/git")
        let harness = try await HubHarness(directory: directory, gitEnvironment: fixture.environment)
        harness.codex.on("thread/start") { params in ["thread": ["id": "t1", "cwd": params["cwd"] ?? JSONValue.null]] }
        harness.codex.on("turn/start") { _ in ["turn": ["id": "turn-1"]] }
        let phone = await harness.session()
        let target = try GitFixture.make(harness.outside + "/target")
        try FileManager.default.createSymbolicLink(atPath: fixture.directory + "/app.worktrees", withDestinationPath: target)
        let answer = await harness.request(
            BridgeRequest(.startThread, StartThread(cwd: fixture.repository, prompt: "task", worktree: WorktreeRequest(branch: "task"))),
            phone)
        #expect(answer.errorCode == .unsafeRepository, "\(answer)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: target) == [])
    }
}
