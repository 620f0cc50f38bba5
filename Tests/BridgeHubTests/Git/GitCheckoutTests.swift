import BridgeProtocol
import Foundation
import Testing

@testable import BridgeGit
@testable import BridgeHub

/// Status, commit, branch, switch and push with a real git against a bare remote on disk (`file://`). Cost: about
/// 30 git processes per test, well under a second each.
@Suite(.timeLimit(.minutes(1))) struct GitCheckoutTests {
    @Test func statusListsChangesUnderTheThreadsDirectoryWithBranchAndUpstream() async throws {
        let fixture = try GitFixture()
        try fixture.write("tracked.txt", "two\n")
        try fixture.write("sub/new file.txt", "new\n")
        try fixture.git("-C", fixture.repository, "mv", "tracked.txt", "moved.txt")
        let (report, truncated) = try await fixture.checkout().status()
        #expect(!truncated && report.branch == "main" && report.upstream == nil && report.head?.count == 40)
        #expect(
            Set(report.files) == [
                .init(path: "moved.txt", index: "R", worktree: "M", originalPath: "tracked.txt"),
                .init(path: "sub/new file.txt", index: "?", worktree: "?"),
            ])
        // From a subdirectory: only what is under it; paths stay relative to the top.
        let sub = try await fixture.checkout(fixture.repository + "/sub").status().report
        #expect(sub.files.map(\.path) == ["sub/new file.txt"])
    }

    @Test func commitTakesEverythingOrOnlyThePathsWithTheUsersIdentity() async throws {
        let fixture = try GitFixture()
        try fixture.write("tracked.txt", "two\n")
        try fixture.write("a.txt", "a\n")
        try fixture.write("b.txt", "b\n")
        let checkout = try fixture.checkout()
        let (sha, branch) = try await checkout.commit(message: "Add a\n\nOnly a.", paths: ["a.txt"])
        let head = try fixture.git("-C", fixture.repository, "rev-parse", "HEAD")
        #expect(branch == "main" && sha == head)
        let shown = try fixture.git("-C", fixture.repository, "show", "--name-only", "--format=%an <%ae>%n%B", "HEAD")
        #expect(shown == "Ana <ana@example.com>\nAdd a\n\nOnly a.\n\n\na.txt")
        let rest = try await checkout.commit(message: "The rest", paths: nil)
        let restFiles = try fixture.git("-C", fixture.repository, "show", "--name-only", "--format=", rest.sha)
        #expect(restFiles == "b.txt\ntracked.txt")
        #expect(try await checkout.status().report.files.isEmpty)
        #expect(await gitErrorCode { _ = try await checkout.commit(message: "again", paths: nil) } == "bad_request")
        #expect(await gitErrorCode { _ = try await checkout.commit(message: "  \n", paths: nil) } == "bad_request")
        for bad in ["../x", "/etc/passwd", ".git/config", "a/../../x", ""] {
            #expect(await gitErrorCode { _ = try await checkout.commit(message: "m", paths: [bad]) } == "bad_request", "\(bad)")
        }
        // A thread in a subdirectory commits only there.
        try fixture.write("sub/s.txt", "s\n")
        try fixture.write("top.txt", "t\n")
        let sub = try fixture.checkout(fixture.repository + "/sub")
        #expect(await gitErrorCode { _ = try await sub.commit(message: "m", paths: ["top.txt"]) } == "bad_request")
        let subCommit = try await sub.commit(message: "sub only", paths: nil)
        let subFiles = try fixture.git("-C", fixture.repository, "show", "--name-only", "--format=", subCommit.sha)
        #expect(subFiles == "sub/s.txt")
    }

    @Test func aCommitWithoutAnIdentitySaysHowToSetOne() async throws {
        let fixture = try GitFixture(identity: false)
        try fixture.write("a.txt", "a\n")
        do {
            _ = try await fixture.checkout().commit(message: "m", paths: nil)
            Issue.record("committed without an identity")
        } catch let error as GitError {
            #expect(error.code == .badRequest && error.message.contains("git config --global user.email"))
        }
    }

    @Test func aPreCommitHookTheUserReliesOnIsNamedAndNotRun() async throws {
        let fixture = try GitFixture()
        try fixture.script(fixture.repository + "/.git/hooks/pre-commit", marker: "pre-commit")
        try fixture.write("a.txt", "a\n")
        do {
            _ = try await fixture.checkout().commit(message: "m", paths: nil)
            Issue.record("committed past the hook")
        } catch let error as GitError {
            #expect(
                error.code == .unsafeRepository && error.message.contains("pre-commit hook") && error.message.contains("let Codex commit"))
        }
        #expect(fixture.touchedMarkers.isEmpty)
        let count = try fixture.git("-C", fixture.repository, "rev-list", "--count", "HEAD")
        #expect(count == "1")
    }

    @Test func aFileGoingThroughAFilterProgramIsNotCommittedRaw() async throws {
        let fixture = try GitFixture(globalConfig: "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n\trequired = true\n")
        try fixture.write(".gitattributes", "*.bin filter=lfs\n")
        try fixture.write("big.bin", "binary\n")
        do {
            _ = try await fixture.checkout().commit(message: "m", paths: nil)
            Issue.record("committed a filtered file")
        } catch let error as GitError {
            #expect(error.code == .unsafeRepository && error.message.contains("filter.lfs.clean"))
        }
        // Files outside the filter still commit.
        let sha = try await fixture.checkout().commit(message: "attributes", paths: [".gitattributes"]).sha
        #expect(sha.count == 40)
    }

    @Test func branchAndSwitch() async throws {
        let fixture = try GitFixture()
        let checkout = try fixture.checkout()
        try await checkout.createBranch("feature/x", from: nil)
        #expect(try await checkout.status().report.branch == "feature/x")
        #expect(await gitErrorCode { try await checkout.createBranch("feature/x", from: nil) } == "conflict")
        #expect(await gitErrorCode { try await checkout.createBranch("bad..name", from: nil) } == "bad_request")
        #expect(await gitErrorCode { try await checkout.createBranch("y", from: "nope") } == "bad_request")
        #expect(await gitErrorCode { try await checkout.createBranch("y", from: "--output=/tmp/x") } == "bad_request")
        try fixture.write("tracked.txt", "on feature\n")
        _ = try await checkout.commit(message: "feature change", paths: nil)
        try await checkout.switchBranch("main")
        #expect(try await checkout.status().report.branch == "main")
        #expect(await gitErrorCode { try await checkout.switchBranch("nope") } == "not_found")
        // An uncommitted change the switch would overwrite: git refuses, nothing is lost.
        try fixture.write("tracked.txt", "precious\n")
        #expect(await gitErrorCode { try await checkout.switchBranch("feature/x") } == "conflict")
        let kept = try String(contentsOfFile: fixture.repository + "/tracked.txt", encoding: .utf8)
        #expect(kept == "precious\n")
        try await checkout.createBranch("from-main", from: "main")
        #expect(try await checkout.status().report.branch == "from-main")
    }

    @Test func pushSetsTheUpstreamThenFollowsItAndAFastForwardRefusalIsAConflict() async throws {
        let fixture = try GitFixture()
        let checkout = try fixture.checkout()
        #expect(await gitErrorCode { _ = try await checkout.push(remote: nil, setUpstream: false) } == "conflict")  // no upstream yet
        let first = try await checkout.push(remote: nil, setUpstream: true)
        #expect(first == .init(branch: "main", remote: "origin", destination: "main", setsUpstream: true))
        let remoteHead = try fixture.git("-C", fixture.remote, "rev-parse", "main")
        #expect(remoteHead == (try fixture.git("-C", fixture.repository, "rev-parse", "HEAD")))
        let status = try await checkout.status().report
        #expect(status.upstream == "origin/main" && status.ahead == 0)
        try fixture.write("tracked.txt", "two\n")
        _ = try await checkout.commit(message: "two", paths: nil)
        #expect(try await checkout.status().report.ahead == 1)
        let second = try await checkout.push(remote: nil, setUpstream: false)
        #expect(second.setsUpstream == false && second.destination == "main")
        #expect(await gitErrorCode { _ = try await checkout.push(remote: "nope", setUpstream: true) } == "bad_request")
        // Someone else pushed meanwhile: non-fast-forward.
        let other = fixture.directory + "/other"
        try fixture.git("clone", "-q", "file://" + fixture.remote, other)
        try fixture.write("other.txt", "x\n", in: other)
        try fixture.git("-C", other, "add", ".")
        try fixture.git("-C", other, "commit", "-qm", "other")
        try fixture.git("-C", other, "push", "-q", "origin", "main")
        try fixture.write("tracked.txt", "three\n")
        _ = try await checkout.commit(message: "three", paths: nil)
        do {
            _ = try await checkout.push(remote: nil, setUpstream: false)
            Issue.record("pushed over a newer remote")
        } catch let error as GitError {
            #expect(error.code == .conflict && error.message.contains("fetch first"), "\(error.summary)")
            #expect(!error.message.contains("\n"))
        }
        try fixture.git("-C", fixture.repository, "checkout", "-q", "--detach")
        #expect(await gitErrorCode { _ = try await checkout.push(remote: nil, setUpstream: true) } == "conflict")
    }

    /// Issue 46 item 5: a first commit in a repository made with `git init` has nowhere to go. The push says so with
    /// its own code and the command that adds a remote; the status lists the remotes, so a phone can say it first.
    @Test func aPushWithNoRemoteSaysHowToAddOne() async throws {
        let fixture = try GitFixture()
        let checkout = try fixture.checkout()
        #expect(try await GitService.status("t", checkout, gh: nil).remotes == ["origin"])
        try fixture.git("-C", fixture.repository, "remote", "remove", "origin")
        #expect(try await GitService.status("t", checkout, gh: nil).remotes == [])
        do {
            _ = try await checkout.push(remote: nil, setUpstream: true)
            Issue.record("pushed with no remote")
        } catch let error as GitError {
            #expect(error.code.wire.rawValue == "no_remote", "\(error)")
            #expect(error.message.contains("git remote add origin URL"), "\(error)")
        }
        // A remote by another name: pushed to when named, and listed.
        try fixture.git("-C", fixture.repository, "remote", "add", "backup", "file://" + fixture.remote)
        #expect(try await GitService.status("t", checkout, gh: nil).remotes == ["backup"])
        #expect(try await checkout.push(remote: "backup", setUpstream: true).remote == "backup")
    }
}

/// Finding the work tree: what git would take for a repository, nothing else. Cost: a few file operations.
@Suite struct GitWorkTreeTests {
    @Test func anEmptyOrStrayDotGitOnTheWayUpIsPassedOver() throws {
        let fixture = try GitFixture()
        let sub = try GitFixture.make(fixture.repository + "/sub/deeper")
        // A `.git` directory without HEAD (an agent's, or a stray one in /tmp) and a file that is no gitfile.
        _ = try GitFixture.make(fixture.repository + "/sub/.git")
        try "not a gitfile\n".write(toFile: sub + "/.git", atomically: true, encoding: .utf8)
        #expect(GitWorkTree.repositoryTop(containing: sub) == fixture.repository)
        let outside = try GitFixture.make(fixture.directory + "/plain/inner")
        _ = try GitFixture.make(fixture.directory + "/plain/.git")
        #expect(GitWorkTree.repositoryTop(containing: outside) != fixture.directory + "/plain")
        try fixture.git("-C", fixture.repository, "worktree", "add", "-q", "-b", "w", fixture.directory + "/linked")
        #expect(GitWorkTree.repositoryTop(containing: fixture.directory + "/linked") == fixture.directory + "/linked")
    }
}
