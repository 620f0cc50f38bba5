import BridgeProtocol
import CodexControl
import Eventually
import Foundation
import Logging
import Synchronization
import Testing

@testable import BridgeHub

/// ``CommandService`` without a hub (fake Codex): a run's ending travels on the service's own channel and waits
/// until the reader of Codex's events has handed over the output Codex sent before its answer. Cost: milliseconds.
@Suite(.timeLimit(.minutes(1))) struct CommandServiceTests {
    @Test func aFrameIsNumberedOnItsThread() {
        let output = CommandService.Frame.output(CommandOutput(seq: 0, threadId: "t1", runId: "r", data: "hi\n"))
        let exited = CommandService.Frame.exited(CommandExited(seq: 0, threadId: "t2", runId: "r", exitCode: 1))
        #expect(output.threadId == "t1" && exited.threadId == "t2")
        #expect(output.message(seq: 7) == .commandOutput(CommandOutput(seq: 7, threadId: "t1", runId: "r", data: "hi\n")))
        #expect(exited.message(seq: 8) == .commandExited(CommandExited(seq: 8, threadId: "t2", runId: "r", exitCode: 1)))
    }

    @Test func anEndingWaitsForTheOutputCodexSentBeforeIt() async throws {
        let codex = FakeCodexPort()
        codex.onAsync("command/exec") { params in
            let processId = params["processId"]?.stringValue ?? ""
            await codex.notify(
                "command/exec/outputDelta",
                ["processId": .string(processId), "stream": "stdout", "deltaBase64": .string(Data("hi\n".utf8).base64EncodedString())])
            return ["exitCode": 0, "stdout": "", "stderr": ""]
        }
        let jobs = BackgroundJobs()
        let owner = Task { await jobs.run { try? await Task.sleep(for: .seconds(60)) } }
        defer { owner.cancel() }
        let service = CommandService(
            codex: codex, codexTimeout: .seconds(5), jobs: jobs, logger: Logger(label: "t", factory: { _ in SwiftLogNoOpLogHandler() }))
        let received = Mutex<[CommandService.Frame]>([])
        let reader = Task {
            for await frame in service.frames { received.withLock { $0.append(frame) } }
        }
        defer { reader.cancel() }

        let (runId, command) = try service.reserve(RunCommand(threadId: "t1", command: " echo hi "))
        service.launch(runId, command: command, cwd: "/tmp", sandbox: "read-only")
        #expect(command == "echo hi")
        // Codex answered (its delta is in the event stream, unread): nothing is journaled yet.
        try await eventually("Codex's answer taken") { service.endingsWaiting == 1 || !received.withLock { $0 }.isEmpty }
        #expect(codex.events.sentCount == 1)
        #expect(service.endingsWaiting == 1)
        #expect(received.withLock { $0 }.isEmpty)

        // The reader hands the delta over, then says it has read that far: output, then the exit.
        let delta = try #require(codex.events.poll(limit: 1).first)
        guard case .inbound(.notification(let note)) = delta else {
            Issue.record("not a notification: \(delta)")
            return
        }
        service.outputDelta(note.params)
        service.eventsRead(adding: 1)
        try await eventually("the output and the exit") { received.withLock { $0.count } >= 2 }
        #expect(
            received.withLock { $0 } == [
                .output(CommandOutput(seq: 0, threadId: "t1", runId: runId, data: "hi\n")),
                .exited(CommandExited(seq: 0, threadId: "t1", runId: runId, exitCode: 0)),
            ])
    }
}
