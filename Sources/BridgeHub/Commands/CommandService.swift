import BridgeProtocol
import CodexControl
import Foundation
import Logging
import Synchronization

/// `runCommand` / `stopCommand`: a phone's `!command`, run through Codex's `command/exec` in the thread's directory
/// with the thread's sandbox policy (never `thread/shellCommand`, which runs unsandboxed), a timeout and an output
/// cap; at most ``CommandRuns/maxPerThread`` at once per thread. The run is journaled like other events:
/// `commandStarted` (by the hub, as it accepts the run), `commandOutput`… (streamed from Codex's
/// `command/exec/outputDelta`), `commandExited`.
///
/// Beside the hub, with its own state (``CommandRuns``): the hub hands it the output Codex sends (in the order of
/// Codex's event stream) and tells it how far it has read that stream; what a run journals comes out of
/// ``frames``, one ordered channel the hub publishes from. A run's ending (Codex's answer to `command/exec`) waits
/// there until the hub has handed over every event Codex sent before that answer, so it comes after the run's output.
final class CommandService: Sendable {
    /// What a run journals after its start, in order.
    enum Frame: Sendable, Equatable {
        case output(CommandOutput)
        case exited(CommandExited)
    }

    /// How long a command may run.
    static let commandTimeout: Duration = .seconds(300)
    /// Longest command line accepted.
    static let maxCommandBytes = 4096
    /// How long output may wait before it is journaled and sent.
    static let flushDelay: Duration = .milliseconds(100)

    private struct Ending {
        /// Codex's events sent before the answer: the hub has handed them over once it has read this many.
        let mark: Int
        let runId: String
        let params: JSONValue
    }

    private struct State {
        var runs = CommandRuns()
        /// How many of Codex's events the hub has read (``eventsRead(adding:)``).
        var read = 0
        /// Endings waiting for the hub to read up to their mark.
        var endings: [Ending] = []
    }

    private let state = Mutex(State())
    private let codex: any CodexPort
    private let codexTimeout: Duration
    private let logger: Logger
    /// Where the runs and their flush timers run (the hub's, owned by its `run()`).
    private let jobs: BackgroundJobs
    /// The frames the hub journals and sends, in order (seq-less: the hub numbers them).
    let frames: AsyncStream<Frame>
    private let continuation: AsyncStream<Frame>.Continuation

    init(codex: any CodexPort, codexTimeout: Duration, jobs: BackgroundJobs, logger: Logger) {
        self.codex = codex
        self.codexTimeout = codexTimeout
        self.jobs = jobs
        self.logger = logger
        (frames, continuation) = AsyncStream.makeStream(of: Frame.self)
    }

    /// Takes one of the thread's run slots for `run` (checked and taken together); → its run id and the command
    /// line as it will run. ``launch(_:command:cwd:sandbox:)`` runs it once its start is journaled.
    func reserve(_ run: RunCommand) throws -> (runId: String, command: String) {
        let command = run.command.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !command.isEmpty, command.utf8.count <= Self.maxCommandBytes, !command.contains("\u{0}") else {
            throw HubError(.badRequest, "command must be 1 to \(Self.maxCommandBytes) bytes of text")
        }
        let runId = "run-" + UUID().uuidString.lowercased().prefix(13)
        try state.withLock { state in
            guard state.runs.running(on: run.threadId) < CommandRuns.maxPerThread, state.runs.count < CommandRuns.maxRunning else {
                throw HubError(.conflict, "at most \(CommandRuns.maxPerThread) commands run at once on a thread; stop one or wait for it")
            }
            state.runs.start(runId, threadId: run.threadId)
        }
        return (runId, command)
    }

    /// Runs a reserved command in `cwd` under the thread's sandbox: after its `commandStarted` was journaled, so its
    /// output cannot precede it.
    func launch(_ runId: String, command: String, cwd: String, sandbox: String) {
        let sandboxPolicy = Self.sandboxPolicy(sandbox, cwd: cwd)
        jobs.start { await self.execute(runId, argv: [Self.shell, "-c", command], cwd: cwd, sandboxPolicy: sandboxPolicy) }
    }

    func stop(_ stop: StopCommand) async throws {
        let found = state.withLock { state in
            guard let run = state.runs.run(stop.runId), run.threadId == stop.threadId else { return false }
            state.runs.update(stop.runId) { $0.stopRequested = true }
            return true
        }
        guard found else { throw HubError(.notFound, "no command \(stop.runId.prefix(64)) is running on thread \(stop.threadId)") }
        try await codex.commandExecTerminate(processId: stop.runId, timeout: codexTimeout)
    }

    /// Runs the command to its end; its ending waits for the output Codex sent before it (``eventsRead(adding:)``).
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
        // may not have read yet: the ending waits until it has.
        let answered = Ending(mark: codex.events.sentCount, runId: runId, params: .object(ending))
        state.withLock { state in
            if answered.mark <= state.read {
                ended(answered, &state)
            } else {
                state.endings.append(answered)
            }
        }
    }

    /// The hub has read `count` more of Codex's events (and handed over the output among them): the endings answered
    /// after them are journaled.
    func eventsRead(adding count: Int) {
        state.withLock { state in
            state.read += count
            let count = state.read
            guard !state.endings.isEmpty else { return }
            let due = state.endings.filter { $0.mark <= count }
            state.endings.removeAll { $0.mark <= count }
            for ending in due { ended(ending, &state) }
        }
    }

    /// Endings Codex answered that wait for the hub to read the events sent before them (a test's barrier).
    var endingsWaiting: Int { state.withLock { $0.endings.count } }

    /// `command/exec/outputDelta {processId, stream, deltaBase64, capReached}`, in the order of Codex's events.
    func outputDelta(_ params: JSONValue) {
        guard let runId = params["processId"]?.stringValue, let encoded = params["deltaBase64"]?.stringValue,
            let bytes = Data(base64Encoded: encoded)
        else { return }
        state.withLock { output(runId, Array(bytes), capReached: params["capReached"]?.boolValue ?? false, &$0) }
    }

    /// Journals the end of a run (the output before it has been handed over).
    private func ended(_ ending: Ending, _ state: inout State) {
        let params = ending.params
        guard state.runs.run(ending.runId) != nil else { return }
        for stream in ["stdout", "stderr"] {
            if let text = params[stream]?.stringValue, !text.isEmpty { output(ending.runId, Array(text.utf8), capReached: false, &state) }
        }
        finish(ending.runId, exitCode: params["exitCode"]?.intValue, reason: params["reason"]?.stringValue, &state)
    }

    private func output(_ runId: String, _ bytes: [UInt8], capReached: Bool, _ state: inout State) {
        guard let run = state.runs.run(runId) else { return }
        if state.runs.append(runId, bytes, capReached: capReached) {
            flush(runId, &state)
        } else if !run.flushScheduled {
            state.runs.update(runId) { $0.flushScheduled = true }
            jobs.start {
                try? await Task.sleep(for: Self.flushDelay)
                self.scheduledFlush(runId)
            }
        }
    }

    private func scheduledFlush(_ runId: String) {
        state.withLock { state in
            state.runs.update(runId) { $0.flushScheduled = false }
            flush(runId, &state)
        }
    }

    private func flush(_ runId: String, final: Bool = false, _ state: inout State) {
        guard let run = state.runs.run(runId), let text = state.runs.take(runId, final: final) else { return }
        continuation.yield(.output(CommandOutput(seq: 0, threadId: run.threadId, runId: runId, data: text)))
    }

    private func finish(_ runId: String, exitCode: Int?, reason: String?, _ state: inout State) {
        flush(runId, final: true, &state)
        guard let run = state.runs.finish(runId) else { return }
        let threadId = run.threadId
        let reason = run.stopRequested ? "stopped" : reason
        let exitCode = run.stopRequested ? nil : exitCode
        continuation.yield(
            .exited(
                CommandExited(
                    seq: 0, threadId: threadId, runId: runId, exitCode: exitCode, reason: reason, truncated: run.truncated ? true : nil)
            ))
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
    static func sandboxPolicy(_ sandbox: String, cwd: String) -> JSONValue {
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
