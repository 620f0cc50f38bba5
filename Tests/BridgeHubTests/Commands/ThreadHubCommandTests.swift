import BridgeProtocol
import BridgeStore
import CodexControl
import Eventually
import Foundation
import Synchronization
import Testing

@testable import BridgeHub

/// `runCommand` / `stopCommand` in-process (fake Codex playing `command/exec`, real SQLite journal): what Codex is
/// asked, output reassembled into whole characters, the exit journaled once, the limit per thread, stop, and a
/// run left open by a restart. Cost: milliseconds (one flush delay per output).
@Suite(.timeLimit(.minutes(1))) struct ThreadHubCommandTests {
    static func output(_ frames: [ServerMessage], _ runId: String) -> String {
        frames.compactMap { if case .commandOutput(let output) = $0, output.runId == runId { output.data } else { nil } }.joined()
    }

    static func exited(_ frames: [ServerMessage]) -> CommandExited? {
        frames.lazy.compactMap { if case .commandExited(let exited) = $0 { exited } else { nil } }.first
    }

    @Test func aCommandRunsThroughCodexInTheThreadsSandboxAndItsOutputIsJournaled() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        let codex = harness.codex
        codex.onAsync("command/exec") { params in
            let processId = try #require(params["processId"]?.stringValue)
            // "é" split across two pieces, stdout and stderr interleaved.
            for piece in [[0x68, 0x69, 0x20, 0xC3], [0xA9, 0x0A], Array("oops\n".utf8)] as [[UInt8]] {
                await codex.notify(
                    "command/exec/outputDelta",
                    [
                        "processId": .string(processId), "stream": "stdout", "deltaBase64": .string(Data(piece).base64EncodedString()),
                        "capReached": false,
                    ])
            }
            return ["exitCode": 3, "stdout": "", "stderr": ""]
        }
        let phone = await harness.session(deviceId: "d1", scopes: .all)
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), phone)
        let answer = await harness.request(BridgeRequest(.runCommand, RunCommand(threadId: "t1", command: "  echo hi; false  ")), phone)
        guard case .response(_, .accepted(let accepted)) = answer, let runId = accepted.runId else {
            Issue.record("not accepted: \(answer)")
            return
        }
        let frames = try await harness.waitFor(phone) { $0.kind == "commandExited" }
        guard case .commandStarted(let started)? = frames.first(where: { $0.kind == "commandStarted" }) else {
            Issue.record("no commandStarted")
            return
        }
        #expect(started.runId == runId && started.command == "echo hi; false" && started.cwd == harness.project && started.deviceId == "d1")
        #expect(Self.output(frames, runId) == "hi é\noops\n")
        #expect(Self.exited(frames) == CommandExited(seq: Self.exited(frames)?.seq ?? 0, threadId: "t1", runId: runId, exitCode: 3))
        let exec = try #require(codex.requests("command/exec").first)
        #expect(exec["command"]?.arrayValue?.suffix(2) == ["-c", "echo hi; false"])
        #expect(exec["cwd"] == .string(harness.project) && exec["streamStdoutStderr"] == true)
        #expect(
            exec["sandboxPolicy"]
                == [
                    "type": "workspaceWrite", "writableRoots": [.string(harness.project)], "networkAccess": false, "excludeSlashTmp": true,
                    "excludeTmpdirEnvVar": true,
                ])
        #expect(codex.requests("thread/shellCommand").isEmpty)

        // A phone that subscribes later (or reconnects) reads the same run from the journal, once.
        let later = await harness.session(deviceId: "d2", scopes: .all)
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1", afterSeq: 0)), later)
        let replayed = try await harness.waitFor(later) { $0.kind == "commandExited" }
        #expect(replayed.filter { $0.kind == "commandStarted" }.count == 1)
        #expect(Self.output(replayed, runId) == "hi é\noops\n")
        #expect(await harness.request(BridgeRequest(.runCommand, RunCommand(threadId: "t1", command: " ")), phone).errorCode == .badRequest)
    }

    @Test func atMostThreeRunAtOnceAndStopEndsOne() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("t1", cwd: harness.project)
        // Each command runs until it is terminated.
        let terminated = Mutex<[String: Gate]>([:])
        let gate = { @Sendable (processId: String) in
            terminated.withLock { gates in
                if let gate = gates[processId] { return gate }
                let gate = Gate()
                gates[processId] = gate
                return gate
            }
        }
        harness.codex.on("command/exec/terminate") { params in
            gate(params["processId"]?.stringValue ?? "").open()
            return [:]
        }
        harness.codex.onAsync("command/exec") { params in
            await gate(params["processId"]?.stringValue ?? "").wait()
            return ["exitCode": 143, "stdout": "", "stderr": ""]
        }
        let phone = await harness.session()
        _ = await harness.request(BridgeRequest(.subscribe, Subscribe(threadId: "t1")), phone)
        var runs: [String] = []
        for _ in 0..<3 {
            guard
                case .response(_, .accepted(let accepted)) = await harness.request(
                    BridgeRequest(.runCommand, RunCommand(threadId: "t1", command: "sleep 100")), phone),
                let runId = accepted.runId
            else { throw HubHarnessError.unexpected }
            runs.append(runId)
        }
        #expect(
            await harness.request(BridgeRequest(.runCommand, RunCommand(threadId: "t1", command: "sleep 1")), phone).errorCode == .conflict)
        #expect(
            await harness.request(BridgeRequest(.stopCommand, StopCommand(threadId: "t1", runId: "nope")), phone).errorCode == .notFound)
        #expect(await harness.request(BridgeRequest(.stopCommand, StopCommand(threadId: "t1", runId: runs[0])), phone).errorCode == nil)
        let frames = try await harness.waitFor(phone) { $0.kind == "commandExited" }
        #expect(Self.exited(frames).map { [$0.runId, $0.reason ?? ""] } == [runs[0], "stopped"])
        #expect(Self.exited(frames)?.exitCode == nil)
        // One slot free again.
        #expect(await harness.request(BridgeRequest(.runCommand, RunCommand(threadId: "t1", command: "true")), phone).errorCode == nil)
        for runId in runs.dropFirst() {
            _ = await harness.request(BridgeRequest(.stopCommand, StopCommand(threadId: "t1", runId: runId)), phone)
        }
    }

    @Test func aRunLeftOpenByARestartEndsWithBridgeRestarted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-\(UUID().uuidString)")
        var runId = ""
        do {
            let harness = try await HubHarness(directory: directory)
            harness.codexKnowsThread("t1", cwd: harness.project)
            harness.codex.onAsync("command/exec") { _ in
                try await Task.sleep(for: .seconds(60))
                return [:]
            }
            let phone = await harness.session()
            guard
                case .response(_, .accepted(let accepted)) = await harness.request(
                    BridgeRequest(.runCommand, RunCommand(threadId: "t1", command: "sleep 60")), phone)
            else { throw HubHarnessError.unexpected }
            runId = accepted.runId ?? ""
        }
        let restarted = try await HubHarness(directory: directory)
        let phone = await restarted.session()
        _ = await restarted.request(BridgeRequest(.subscribe, Subscribe(threadId: "*", afterSeq: 0)), phone)
        let frames = try await restarted.waitFor(phone) { $0.kind == "commandExited" }
        #expect(Self.exited(frames)?.runId == runId && Self.exited(frames)?.reason == "bridge restarted")
    }

    @Test func aThreadOutsideTheRootsRunsNothing() async throws {
        let harness = try await HubHarness()
        harness.codexKnowsThread("foreign", cwd: harness.outside)
        let phone = await harness.session()
        for request: BridgeRequest in [
            BridgeRequest(.runCommand, RunCommand(threadId: "foreign", command: "touch x")),
            BridgeRequest(.stopCommand, StopCommand(threadId: "foreign", runId: "r")),
            BridgeRequest(.removeWorktree, RemoveWorktree(threadId: "foreign", force: true)),
        ] {
            #expect(await harness.request(request, phone).errorCode == .forbiddenPath, "\(request.kind)")
        }
        #expect(harness.codex.requests("command/exec").isEmpty)
    }

    @Test func outputIsCutAtWholeCharactersAndCapped() {
        #expect(CommandRuns.completeUTF8Prefix([0x61, 0xC3]) == 1)
        #expect(CommandRuns.completeUTF8Prefix([0x61, 0xC3, 0xA9]) == 3)
        #expect(CommandRuns.completeUTF8Prefix([0xE2, 0x82]) == 0)
        #expect(CommandRuns.completeUTF8Prefix([0xF0, 0x9F, 0x98, 0x80]) == 4)
        #expect(CommandRuns.completeUTF8Prefix([0x80, 0x80]) == 2)  // not UTF-8 at all: handed out (lossily) as it is
        var runs = CommandRuns()
        runs.start("r", threadId: "t")
        _ = runs.append("r", Array(repeating: 0x61, count: CommandRuns.outputCap - 1), capReached: false)
        _ = runs.append("r", [0x62, 0x63], capReached: false)
        #expect(runs.take("r")?.count == CommandRuns.outputCap)
        #expect(runs.run("r")?.truncated == true)
        _ = runs.append("r", [0x64], capReached: false)
        #expect(runs.take("r") == nil)
    }
}

enum HubHarnessError: Error { case unexpected }
