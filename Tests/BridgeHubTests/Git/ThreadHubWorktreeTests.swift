import BridgeProtocol
import CodexControl
import ConfinedFiles
import Foundation
import Synchronization
import Testing

@testable import BridgeHub

/// A worktree per task through the hub (fake Codex, real git): `startThread {worktree}` runs the thread in a new
/// worktree on a new branch, answers and lists carry `branch` / `worktreeOf`, two worktrees do not interfere, and
/// `removeWorktree` refuses to lose work unless forced. Cost: a few dozen git processes.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubWorktreeTests {
    @Test func eachTaskGetsItsOwnWorktreeAndBranch() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        let fixture = try GitFixture(base: directory.path + "/root/git")
        let harness = try await HubHarness(directory: directory, gitEnvironment: fixture.environment)
        let started = Mutex<[String]>([])
        harness.codex.on("thread/start") { params in
            let cwd = params["cwd"]?.stringValue ?? ""
            let id = started.withLock {
                $0.append(cwd)
                return "t\($0.count)"
            }
            return ["thread": ["id": .string(id), "cwd": .string(cwd)]]
        }
        harness.codex.on("turn/start") { _ in ["turn": ["id": "turn-1"]] }
        let phone = await harness.session()
        func start(_ branch: String, from: String? = nil) async -> ServerMessage {
            await harness.request(
                BridgeRequest(
                    .startThread,
                    StartThread(cwd: fixture.repository, prompt: "task", worktree: WorktreeRequest(branch: branch, from: from))),
                phone)
        }
        guard case .response(_, .threadStarted(let first)) = await start("feature/one") else {
            Issue.record("no thread")
            return
        }
        let container = fixture.directory + "/app.worktrees"
        #expect(first.cwd == container + "/feature-one" && first.branch == "feature/one" && first.worktreeOf == fixture.repository)
        #expect(started.withLock { $0 } == [container + "/feature-one"])
        guard case .response(_, .threadStarted(let second)) = await start("feature/two", from: "main") else {
            Issue.record("no second thread")
            return
        }
        #expect(second.cwd == container + "/feature-two")
        #expect(await start("feature/one").errorCode == .conflict)
        #expect(await start("main").errorCode == .conflict)
        #expect(await start("bad name").errorCode == .badRequest)
        #expect(started.withLock { $0.count } == 2)  // refusals start nothing

        // Work in one worktree is not seen in the other, nor in the main checkout.
        try fixture.write("one.txt", "one\n", in: first.cwd)
        harness.codexKnowsThread("t1", cwd: first.cwd)
        let commit = await harness.request(BridgeRequest(.gitCommit, GitCommit(threadId: "t1", message: "One")), phone)
        #expect(commit.errorCode == nil)
        #expect(try fixture.git("-C", second.cwd, "status", "--porcelain") == "")
        #expect(try fixture.git("-C", fixture.repository, "status", "--porcelain") == "")
        #expect(try fixture.git("-C", fixture.repository, "log", "-1", "--format=%s", "feature/one") == "One")

        // listThreads says which threads run in worktrees.
        harness.codex.on("thread/list") { _ in
            [
                "data": [
                    ["id": "t1", "cwd": .string(first.cwd)], ["id": "t2", "cwd": .string(second.cwd)],
                    ["id": "t0", "cwd": .string(fixture.repository)],
                ]
            ]
        }
        guard case .response(_, .threads(let list)) = await harness.request(BridgeRequest(.listThreads, ListThreads()), phone) else {
            Issue.record("no list")
            return
        }
        #expect(
            list.threads.map { [$0.threadId, $0.branch ?? "-", $0.worktreeOf ?? "-"] } == [
                ["t1", "feature/one", fixture.repository], ["t2", "feature/two", fixture.repository], ["t0", "-", "-"],
            ])

        // Removing: refused with uncommitted work, forced away; the branch stays.
        harness.codexKnowsThread("t2", cwd: second.cwd)
        try fixture.write("draft.txt", "unsaved\n", in: second.cwd)
        #expect(await harness.request(BridgeRequest(.removeWorktree, RemoveWorktree(threadId: "t2")), phone).errorCode == .conflict)
        #expect(FileManager.default.fileExists(atPath: second.cwd + "/draft.txt"))
        #expect(await harness.request(BridgeRequest(.removeWorktree, RemoveWorktree(threadId: "t2", force: true)), phone).errorCode == nil)
        #expect(!FileManager.default.fileExists(atPath: second.cwd))
        #expect(try fixture.git("-C", fixture.repository, "branch", "--list", "feature/two") == "feature/two")
        harness.codexKnowsThread("t0", cwd: fixture.repository)
        #expect(
            await harness.request(BridgeRequest(.removeWorktree, RemoveWorktree(threadId: "t0", force: true)), phone).errorCode
                == .badRequest)
    }

    @Test func aRepositoryThatIsARootKeepsItsWorktreesInsideAndOutOfItsStatus() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        let fixture = try GitFixture(base: directory.path + "/root/git")
        let roots = try WorkspaceRoots([fixture.repository])
        let harness = try await HubHarness(
            policy: { _ in ThreadHub.Policy(roots: roots) }, directory: directory, gitEnvironment: fixture.environment)
        harness.codex.on("thread/start") { params in ["thread": ["id": "t1", "cwd": params["cwd"] ?? JSONValue.null]] }
        harness.codex.on("turn/start") { _ in ["turn": ["id": "turn-1"]] }
        let phone = await harness.session()
        let answer = await harness.request(
            BridgeRequest(.startThread, StartThread(cwd: fixture.repository, prompt: "task", worktree: WorktreeRequest(branch: "task"))),
            phone)
        guard case .response(_, .threadStarted(let started)) = answer else {
            Issue.record("no thread: \(answer)")
            return
        }
        #expect(started.cwd == fixture.repository + "/.codex-worktrees/task" && started.worktreeOf == fixture.repository)
        #expect(try fixture.git("-C", fixture.repository, "status", "--porcelain") == "")
    }

    /// The repository's `info/exclude` is the repository's to shape: a link there must not make the bridge copy
    /// the file it points to into the repository (where the agent reads it). Seen failing before: the secret
    /// ended up in `.git/info/exclude`.
    @Test func anExcludeLinkedOutOfTheRepositoryIsRefusedNotCopied() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        let fixture = try GitFixture(base: directory.path + "/root/git")
        let secret = directory.path + "/secret.txt"
        try "PRIVATE-KEY-MATERIAL\n".write(toFile: secret, atomically: true, encoding: .utf8)
        let exclude = fixture.repository + "/.git/info/exclude"
        try? FileManager.default.removeItem(atPath: exclude)
        try FileManager.default.createDirectory(atPath: fixture.repository + "/.git/info", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: exclude, withDestinationPath: secret)
        let roots = try WorkspaceRoots([fixture.repository])
        let harness = try await HubHarness(
            policy: { _ in ThreadHub.Policy(roots: roots) }, directory: directory, gitEnvironment: fixture.environment)
        harness.codex.on("thread/start") { params in ["thread": ["id": "t1", "cwd": params["cwd"] ?? JSONValue.null]] }
        let phone = await harness.session()
        let answer = await harness.request(
            BridgeRequest(.startThread, StartThread(cwd: fixture.repository, prompt: "task", worktree: WorktreeRequest(branch: "task"))),
            phone)
        #expect(answer.errorCode == .unsafeRepository)
        let kept = try FileManager.default.destinationOfSymbolicLink(atPath: exclude)
        #expect(kept == secret)  // still the user's link, not a copy of what it points to
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == "PRIVATE-KEY-MATERIAL\n")
    }
}
