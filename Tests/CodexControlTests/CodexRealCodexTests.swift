import BridgeProtocol
import CodexControl
import Foundation
import Testing

/// The real `codex app-server` (CODEX_BIN or located) against `mock_model.py` on 127.0.0.1.
@Suite("Real codex app-server", .timeLimit(.minutes(1)))
struct CodexRealCodexTests {
    /// A supervisor for the real codex pointed at a scripted model; the work directory is `directory/work`.
    private func realSupervisor(model: MockModelProcess, directory: URL) async throws -> CodexSupervisor {
        let codex = try await TestSupport.realCodex()
        let configuration = CodexSupervisor.Configuration(
            locator: CodexLocator(explicitPath: codex),
            server: try TestSupport.codexOptions(port: model.port, home: directory),
            initialBackoff: .milliseconds(200)
        )
        return CodexSupervisor(configuration: configuration, logger: TestSupport.logger("real-codex"))
    }

    private func workDirectory(_ directory: URL) throws -> URL {
        let work = directory.appendingPathComponent("work")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        return work
    }

    private func turnCompleted(_ recorder: EventRecorder, turnId: String) async throws -> JSONValue {
        try await recorder.wait("turn/completed of \(turnId)") { _ in
            recorder.notifications.first { $0.method == "turn/completed" && $0.params["turn"]?["id"]?.stringValue == turnId }?
                .params
        }
    }

    @Test("initialize, thread/start, turn/start: the agent's text streams in and the turn completes")
    func messageTurn() async throws {
        let directory = try TestSupport.temporaryDirectory("message")
        let model = try await MockModelProcess.start(
            script: [["kind": "message", "text": "Hello there.", "deltas": ["Hello", " there."]]], directory: directory)
        defer {
            model.stop()
            TestSupport.cleanUp(directory)
        }
        let supervisor = try await realSupervisor(model: model, directory: directory)
        let work = try workDirectory(directory)
        try await supervisor.withRunning { recorder in
            try await recorder.wait("started") { $0.contains(.started(generation: 1)) ? true : nil }
            let threadId = try await supervisor.threadStart(
                cwd: work.path, sandbox: "workspace-write", approvalPolicy: "on-request")
            let turnId = try await supervisor.turnStart(threadId: threadId, text: "say hello")
            let completed = try await turnCompleted(recorder, turnId: turnId)
            #expect(completed["turn"]?["status"] == "completed")
            let methods = recorder.notifications.map(\.method)
            #expect(methods.contains("turn/started"))
            let deltas = recorder.notifications.filter { $0.method == "item/agentMessage/delta" }
                .compactMap { $0.params["delta"]?.stringValue }.joined()
            let completedText = recorder.notifications.first {
                $0.method == "item/completed" && $0.params["item"]?["type"] == "agentMessage"
            }?.params["item"]?["text"]?.stringValue
            #expect(deltas == "Hello there.")
            #expect(completedText == "Hello there.")
            // Real Codex's deltas take the relay's fast path, with its ids read from the params as written.
            #expect(recorder.relayed.count == 2)
            #expect(
                recorder.relayed.allSatisfy { $0.method == "item/agentMessage/delta" && $0.threadId == threadId && $0.turnId == turnId })

            // The thread is listed and readable with its turns.
            let list = try await supervisor.threadList(limit: 10)
            let ids = list["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(ids.contains(threadId))
            let thread = try await supervisor.threadRead(threadId: threadId)
            #expect(thread["id"]?.stringValue == threadId)
            #expect(thread["turns"]?.arrayValue?.isEmpty == false)

            // A thread Codex does not have: the generic -32600, told apart only by its message.
            let unknown = "0199a213-81c0-7800-8aa1-bbab2a035a53"
            for attempt in [
                { _ = try await supervisor.turnStart(threadId: unknown, text: "x") },
                { _ = try await supervisor.threadResume(threadId: unknown) },
            ] as [() async throws -> Void] {
                do {
                    try await attempt()
                    Issue.record("codex accepted a thread it does not have")
                } catch let error as CodexError {
                    #expect(error.rpcCode == -32600)
                    #expect(error.isThreadNotFound, "\(error.message)")
                }
            }
        }
    }

    @Test("exec_command under approval policy untrusted: the approval request arrives; accept runs the command")
    func approvalTurn() async throws {
        let directory = try TestSupport.temporaryDirectory("approve")
        let model = try await MockModelProcess.start(
            script: [["kind": "exec", "cmd": "touch approved.txt"], ["kind": "message", "text": "Done."]],
            directory: directory)
        defer {
            model.stop()
            TestSupport.cleanUp(directory)
        }
        let supervisor = try await realSupervisor(model: model, directory: directory)
        let work = try workDirectory(directory)
        try await supervisor.withRunning { recorder in
            let threadId = try await supervisor.threadStart(
                cwd: work.path, sandbox: "workspace-write", approvalPolicy: "untrusted")
            let turnId = try await supervisor.turnStart(threadId: threadId, text: "create approved.txt")
            let (id, params) = try await recorder.wait("requestApproval") { events in
                events.lazy.compactMap { event -> (CodexRequestID, JSONValue)? in
                    if case .inbound(.serverRequest(let id, "item/commandExecution/requestApproval", let params)) = event {
                        return (id, params)
                    }
                    return nil
                }.first
            }
            #expect(params["threadId"]?.stringValue == threadId)
            #expect(params["turnId"]?.stringValue == turnId)
            #expect(params["command"]?.stringValue?.contains("touch approved.txt") == true)
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("approved.txt").path))
            try supervisor.respond(to: id, result: ["decision": "accept"])
            let completed = try await turnCompleted(recorder, turnId: turnId)
            #expect(completed["turn"]?["status"] == "completed")
            let execution = recorder.notifications.first {
                $0.method == "item/completed" && $0.params["item"]?["type"] == "commandExecution"
            }?.params["item"]
            #expect(
                FileManager.default.fileExists(atPath: work.appendingPathComponent("approved.txt").path),
                "command item: \(String(describing: execution))"
            )
            #expect(recorder.notifications.contains { $0.method == "serverRequest/resolved" })
        }
    }

    @Test("a stalled turn: turn/steer is accepted, turn/interrupt completes it as interrupted")
    func steerAndInterrupt() async throws {
        let directory = try TestSupport.temporaryDirectory("interrupt")
        // Every request the model gets stalls: a steer makes Codex send the model a second request carrying the
        // steered text (seen in the mock's request log), and a plain answer to it would complete the turn before
        // the test interrupts it (CI failed that way: "no active turn to interrupt").
        let model = try await MockModelProcess.start(
            script: Array(repeating: ["kind": "stall", "text": "late"], count: 6), directory: directory)
        defer {
            model.stop()
            TestSupport.cleanUp(directory)
        }
        let supervisor = try await realSupervisor(model: model, directory: directory)
        let work = try workDirectory(directory)
        try await supervisor.withRunning { recorder in
            let threadId = try await supervisor.threadStart(cwd: work.path, approvalPolicy: "on-request")
            let turnId = try await supervisor.turnStart(threadId: threadId, text: "think forever")
            try await recorder.wait("turn/started") { _ in
                recorder.notifications.contains { $0.method == "turn/started" } ? true : nil
            }
            let steered = try await supervisor.turnSteer(threadId: threadId, text: "also this", expectedTurnId: turnId)
            #expect(steered == turnId)
            await #expect(throws: CodexError.self) {
                _ = try await supervisor.turnSteer(threadId: threadId, text: "x", expectedTurnId: "not-the-turn")
            }
            try await supervisor.turnInterrupt(threadId: threadId, turnId: turnId)
            let completed = try await turnCompleted(recorder, turnId: turnId)
            #expect(completed["turn"]?["status"] == "interrupted")
        }
    }
}
