import BridgeProtocol
import CodexControl
import Foundation
import Logging

/// `runCommand` / `stopCommand`: a phone's `!command`, run through Codex's `command/exec` in the thread's directory
/// with the thread's sandbox policy (never `thread/shellCommand`, which runs unsandboxed), a timeout and an output
/// cap; at most ``CommandRuns/maxPerThread`` at once per thread. The run is journaled like other events:
/// `commandStarted`, `commandOutput`… (streamed from Codex's `command/exec/outputDelta`), `commandExited`.
extension ThreadHub {
    /// How long a command may run.
    static let commandTimeout: Duration = .seconds(300)
    /// Longest command line accepted.
    static let maxCommandBytes = 4096
    /// How long output may wait before it is journaled and sent.
    static let commandFlushDelay: Duration = .milliseconds(100)

    func runCommand(_ run: RunCommand, cwd: String, policy turnPolicy: TurnPolicy, session: ClientSession) async throws -> Accepted {
        let command = run.command.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !command.isEmpty, command.utf8.count <= Self.maxCommandBytes, !command.contains("\u{0}") else {
            throw HubError(.badRequest, "command must be 1 to \(Self.maxCommandBytes) bytes of text")
        }
        guard desks.commands.running(on: run.threadId) < CommandRuns.maxPerThread, desks.commands.count < CommandRuns.maxRunning else {
            throw HubError(.conflict, "at most \(CommandRuns.maxPerThread) commands run at once on a thread; stop one or wait for it")
        }
        let runId = "run-" + UUID().uuidString.lowercased().prefix(13)
        let threadId = run.threadId
        desks.commands.start(runId, threadId: threadId)
        let deviceId = session.principal.deviceId
        publish(threadId: threadId) { seq in
            .commandStarted(CommandStarted(seq: seq, threadId: threadId, runId: runId, command: command, cwd: cwd, deviceId: deviceId))
        }
        session.logger.info("Command started", metadata: ["bridge.thread.id": "\(threadId)", "bridge.command.run": "\(runId)"])
        let sandboxPolicy = Self.commandSandboxPolicy(turnPolicy.sandbox, cwd: cwd)
        background.start { await self.execute(runId, argv: [Self.shell, "-c", command], cwd: cwd, sandboxPolicy: sandboxPolicy) }
        return Accepted(threadId: threadId, runId: runId)
    }

    func stopCommand(_ stop: StopCommand) async throws -> Accepted {
        guard let run = desks.commands.run(stop.runId), run.threadId == stop.threadId else {
            throw HubError(.notFound, "no command \(stop.runId.prefix(64)) is running on thread \(stop.threadId)")
        }
        desks.commands.update(stop.runId) { $0.stopRequested = true }
        try await codex.commandExecTerminate(processId: stop.runId, timeout: policy.codexTimeout)
        return Accepted(threadId: stop.threadId, runId: stop.runId)
    }

    /// Runs the command to its end, then has the hub journal how it ended once it has handled the output before it.
    private func execute(_ runId: String, argv: [String], cwd: String, sandboxPolicy: JSONValue) async {
        var ending: [String: JSONValue] = ["processId": .string(runId)]
        do {
            let result = try await codex.commandExec(
                argv, cwd: cwd, sandboxPolicy: sandboxPolicy, processId: runId, commandTimeout: Self.commandTimeout,
                outputCap: CommandRuns.outputCap, timeout: Self.commandTimeout + .seconds(30))
            ending["exitCode"] = result["exitCode"] ?? .null
            // Output Codex buffered instead of streaming (it should not, with streamStdoutStderr).
            ending["stdout"] = result["stdout"] ?? .null
            ending["stderr"] = result["stderr"] ?? .null
        } catch let error as CodexError {
            ending["reason"] = .string(error.code == .unavailable ? "codex stopped" : String(error.message.prefix(300)))
        } catch {
            ending["reason"] = .string("\(error)")
        }
        // Codex answers after its last output notification, but those travel through the event stream, which the hub
        // may not have read yet: the ending goes the same way, behind them.
        let note = CodexEvent.inbound(.notification(method: Self.commandEndedMethod, params: .object(ending), paramsJSON: nil))
        if await !codex.events.send(note) { commandEnded(.object(ending)) }
    }

    /// The hub's own note, sent through Codex's event stream, that a command's `command/exec` was answered.
    static let commandEndedMethod = "codex-bridge/commandEnded"

    /// Journals the end of a run (the output before it has been handled).
    func commandEnded(_ params: JSONValue) {
        guard let runId = params["processId"]?.stringValue, desks.commands.run(runId) != nil else { return }
        for stream in ["stdout", "stderr"] {
            if let text = params[stream]?.stringValue, !text.isEmpty { commandOutput(runId, Array(text.utf8), capReached: false) }
        }
        finishCommand(runId, exitCode: params["exitCode"]?.numberValue.map { Int($0) }, reason: params["reason"]?.stringValue)
    }

    /// `command/exec/outputDelta {processId, stream, deltaBase64, capReached}`.
    func commandOutputDelta(_ params: JSONValue) {
        guard let runId = params["processId"]?.stringValue, let encoded = params["deltaBase64"]?.stringValue,
            let bytes = Data(base64Encoded: encoded)
        else { return }
        commandOutput(runId, Array(bytes), capReached: params["capReached"]?.boolValue ?? false)
    }

    private func commandOutput(_ runId: String, _ bytes: [UInt8], capReached: Bool) {
        guard let run = desks.commands.run(runId) else { return }
        if desks.commands.append(runId, bytes, capReached: capReached) {
            flushCommandOutput(runId)
        } else if !run.flushScheduled {
            desks.commands.update(runId) { $0.flushScheduled = true }
            background.start {
                try? await Task.sleep(for: Self.commandFlushDelay)
                await self.scheduledFlush(runId)
            }
        }
    }

    private func scheduledFlush(_ runId: String) {
        desks.commands.update(runId) { $0.flushScheduled = false }
        flushCommandOutput(runId)
    }

    private func flushCommandOutput(_ runId: String, final: Bool = false) {
        guard let run = desks.commands.run(runId), let text = desks.commands.take(runId, final: final) else { return }
        let threadId = run.threadId
        publish(threadId: threadId) { seq in .commandOutput(CommandOutput(seq: seq, threadId: threadId, runId: runId, data: text)) }
    }

    private func finishCommand(_ runId: String, exitCode: Int?, reason: String?) {
        flushCommandOutput(runId, final: true)
        guard let run = desks.commands.finish(runId) else { return }
        let threadId = run.threadId
        let reason = run.stopRequested ? "stopped" : reason
        let exitCode = run.stopRequested ? nil : exitCode
        publish(threadId: threadId) { seq in
            .commandExited(
                CommandExited(
                    seq: seq, threadId: threadId, runId: runId, exitCode: exitCode, reason: reason, truncated: run.truncated ? true : nil))
        }
        logger.info(
            "Command exited",
            metadata: ["bridge.thread.id": "\(threadId)", "bridge.command.run": "\(runId)", "bridge.command.exit": "\(exitCode ?? -1)"])
    }

    /// The shell a command line runs in: the user's `$SHELL` when it is an absolute path, else `/bin/sh`.
    static let shell: String = {
        let shell = ProcessInfo.processInfo.environment["SHELL"] ?? ""
        return shell.hasPrefix("/") && FileManager.default.isExecutableFile(atPath: shell) ? shell : "/bin/sh"
    }()

    /// `command/exec`'s `sandboxPolicy` for the thread's sandbox mode: under `workspace-write`, the thread's directory
    /// is the one writable root (`/tmp` and `$TMPDIR`, which Codex adds by default, excluded), with no network.
    static func commandSandboxPolicy(_ sandbox: String, cwd: String) -> JSONValue {
        switch sandbox {
        case "danger-full-access": ["type": "dangerFullAccess"]
        case "workspace-write":
            [
                "type": "workspaceWrite", "writableRoots": [.string(cwd)], "networkAccess": false, "excludeSlashTmp": true,
                "excludeTmpdirEnvVar": true,
            ]
        default: ["type": "readOnly", "networkAccess": false]
        }
    }
}
