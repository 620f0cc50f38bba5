import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Testing

@testable import BridgeHub

/// `listThreads {archived}`, `forkThread` and `listSkills` against a scripted Codex.
@Suite(.timeLimit(.minutes(1))) struct ThreadHubForkTests {
    @Test func archivedThreadsAreAskedForOnlyWhenWanted() async throws {
        let harness = try await HubHarness()
        let project = harness.project
        harness.codex.on("thread/list") { params in
            let archived = params["archived"]?.boolValue == true
            return ["data": [["id": .string(archived ? "old" : "new"), "cwd": .string(project)]]]
        }
        let phone = await harness.session()
        guard case .response(_, .threads(let current)) = await harness.request(BridgeRequest(.listThreads, ListThreads()), phone),
            case .response(_, .threads(let archived)) = await harness.request(
                BridgeRequest(.listThreads, ListThreads(archived: true)), phone)
        else {
            Issue.record("no threads")
            return
        }
        #expect(current.threads.map(\.threadId) == ["new"] && archived.threads.map(\.threadId) == ["old"])
        let sent = harness.codex.requests("thread/list")
        #expect(sent.count == 2 && sent[0]["archived"] == nil && sent[1]["archived"] == true)
    }

    @Test func aForkRunsInTheSourcesDirectoryWithItsPolicyAndIsSubscribed() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("src", cwd: harness.project)
        try await harness.storage.threadPolicies.remember(.init(sandbox: "read-only", approvalPolicy: "never"), for: "src")
        let project = harness.project
        harness.codex.on("thread/fork") { params in
            ["thread": ["id": "fork-1", "cwd": .string(project)], "cwd": .string(project)]
        }
        let phone = await harness.session()
        let answer = await harness.request(BridgeRequest(.forkThread, ForkThread(threadId: "src", turnId: "turn-1")), phone)
        guard case .response(_, .threadForked(let forked)) = answer else {
            Issue.record("\(answer)")
            return
        }
        #expect(forked == ThreadForked(threadId: "fork-1", forkedFrom: "src", cwd: project))
        let sent = try #require(harness.codex.requests("thread/fork").first)
        #expect(sent["threadId"] == "src" && sent["lastTurnId"] == "turn-1" && sent["cwd"] == .string(project))
        #expect(sent["sandbox"] == "read-only" && sent["approvalPolicy"] == "never")
        #expect(try await harness.storage.threadPolicies.entry(for: "fork-1")?.sandbox == "read-only")
        // The forking session sees the fork's events.
        await harness.codex.notify("turn/started", ["threadId": "fork-1", "turn": ["id": "turn-7"]])
        _ = try await harness.waitFor(phone) { $0.event?.type == "turn/started" }
        // A message to the fork needs no resume: Codex loaded it.
        #expect(await harness.request(BridgeRequest(.sendMessage, SendMessage(threadId: "fork-1", text: "go")), phone).errorCode == nil)
        #expect(harness.codex.requests("thread/resume").isEmpty)
    }

    @Test func badForksAreRefusedBeforeCodex() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("foreign", cwd: harness.outside)
        harness.codex.on("thread/fork") { _ in throw CodexError.rpc(code: -32600, message: "turn not found") }
        let phone = await harness.session()
        #expect(await harness.request(BridgeRequest(.forkThread, ForkThread(threadId: "foreign")), phone).errorCode == .forbiddenPath)
        #expect(await harness.request(BridgeRequest(.forkThread, ForkThread(threadId: "")), phone).errorCode == .badRequest)
        #expect(await harness.request(BridgeRequest(.forkThread, ForkThread(threadId: "nope")), phone).errorCode == .notFound)
        #expect(await harness.request(BridgeRequest(.listSkills, ListSkills(threadId: "foreign")), phone).errorCode == .forbiddenPath)
        #expect(harness.codex.requests("thread/fork").isEmpty && harness.codex.requests("skills/list").isEmpty)
        harness.codexKnowsThread("t1", cwd: harness.project)
        #expect(await harness.request(BridgeRequest(.forkThread, ForkThread(threadId: "t1", turnId: "")), phone).errorCode == .badRequest)
        #expect(
            await harness.request(BridgeRequest(.forkThread, ForkThread(threadId: "t1", turnId: "no-such")), phone).errorCode == .badRequest
        )
    }

    @Test func skillsOfTheThreadsDirectory() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let project = harness.project
        harness.codex.on("skills/list") { params in
            #expect(params["cwds"] == [.string(project)])
            return [
                "data": [
                    [
                        "cwd": .string(project), "errors": [],
                        "skills": [
                            ["name": "deploy", "description": "Ship it", "enabled": true, "path": "/x", "scope": "repo"],
                            ["name": "off", "description": "Disabled", "enabled": false, "path": "/y", "scope": "user"],
                        ],
                    ]
                ]
            ]
        }
        let phone = await harness.session()
        guard case .response(_, .skills(let list)) = await harness.request(BridgeRequest(.listSkills, ListSkills(threadId: "t1")), phone)
        else {
            Issue.record("no skills")
            return
        }
        #expect(list == SkillList(threadId: "t1", skills: [.init(name: "deploy", description: "Ship it")]))
    }
}
