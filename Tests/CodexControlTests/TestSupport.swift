import BridgeProtocol
import CodexControl
import Eventually
import Foundation
import Logging
import Synchronization
import Testing

/// Paths and helpers shared by the CodexControl tests.
enum TestSupport {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let mockModelScript = repositoryRoot.appendingPathComponent("Tests/integration/mock_model.py").path

    /// As the bridge executable does: a write to a codex that just exited must not kill the test process.
    private static let ignoreSIGPIPE: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// A logger that prints only when `CODEX_TEST_LOG` is set (tests never bootstrap logging).
    static func logger(_ label: String) -> Logger {
        _ = ignoreSIGPIPE
        if ProcessInfo.processInfo.environment["CODEX_TEST_LOG"] != nil {
            var logger = Logger(label: label, factory: { StreamLogHandler.standardError(label: $0) })
            logger.logLevel = .debug
            return logger
        }
        return Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() })
    }

    /// The real codex: `CODEX_BIN`, else what ``CodexLocator`` finds (PATH, .venv-codex, python3). Fails the
    /// test (never skips) when there is none.
    static func realCodex() async throws -> String {
        if let path = ProcessInfo.processInfo.environment["CODEX_BIN"], !path.isEmpty { return path }
        do {
            return try await CodexLocator(searchRoots: [repositoryRoot.path]).locate()
        } catch {
            Issue.record(
                """
                The real Codex CLI is needed: set CODEX_BIN, or install it (`pip install openai-codex-cli-bin` \
                into \(repositoryRoot.path)/.venv-codex, as Scripts/test does). \(error)
                """
            )
            throw error
        }
    }

    /// A fresh temporary directory.
    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("codexcontrol-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Removes a test's temporary directory and its `CODEX_HOME`.
    static func cleanUp(_ directory: URL) {
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.removeItem(at: codexHomeRoot.appendingPathComponent(directory.lastPathComponent))
    }

    /// Where the tests' `CODEX_HOME`s live: under the user's cache, never under /tmp (even for a clone in a temporary
    /// directory).
    static let codexHomeRoot = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/codex-bridge-tests")

    /// Options pointing codex at a mock model on `port`, with its own `CODEX_HOME`.
    static func codexOptions(port: Int, home: URL) throws -> CodexAppServer.Options {
        // Not under /tmp: codex refuses to create its `codex-linux-sandbox` helper alias in a temporary
        // directory, and sandboxed commands then fail with "bwrap: execvp codex-linux-sandbox".
        let codexHome = codexHomeRoot.appendingPathComponent(home.lastPathComponent)
        try FileManager.default.createDirectory(at: codexHome, withIntermediateDirectories: true)
        let provider =
            #"{name="mock",base_url="http://127.0.0.1:\#(port)/v1",wire_api="responses",env_key="OPENAI_API_KEY"}"#
        return CodexAppServer.Options(
            configOverrides: ["model_provider=mock", "model_providers.mock=\(provider)", "model=mock-model"],
            environment: ["CODEX_HOME": codexHome.path, "OPENAI_API_KEY": "sk-test"],
            workingDirectory: home.path,
            handshakeTimeout: .seconds(30)
        )
    }
}

/// `Tests/integration/mock_model.py` as a subprocess, scripted with a list of responses.
final class MockModelProcess: Sendable {
    let port: Int
    private let process: Process

    private init(port: Int, process: Process) {
        self.port = port
        self.process = process
    }

    /// Starts the model and waits (without blocking a thread of the cooperative pool, which the timing tests
    /// running beside it need) until it wrote its port.
    static func start(script: [JSONValue], directory: URL) async throws -> MockModelProcess {
        let scriptFile = directory.appendingPathComponent("model-script.json")
        let portFile = directory.appendingPathComponent("model-port.txt")
        try JSONEncoder().encode(script).write(to: scriptFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", TestSupport.mockModelScript, "--script", scriptFile.path, "--port-file", portFile.path,
            "--max-stall", "60",
        ]
        process.standardInput = FileHandle.nullDevice
        // Never inherit our stdout/stderr: a child holding them keeps `swift test` waiting for EOF.
        process.standardOutput = FileHandle.nullDevice
        let log = directory.appendingPathComponent("model.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        // The script writes the file whole (a rename) once it listens; -1: it exited first.
        let port = try? await eventually("\(TestSupport.mockModelScript) to listen") { () -> Int? in
            if let text = try? String(contentsOf: portFile, encoding: .utf8) { return Int(text) }
            return process.isRunning ? nil : -1
        }
        guard let port, port > 0 else {
            process.terminate()
            throw MockModelError(message: "\(TestSupport.mockModelScript) did not start (python3 on PATH?)")
        }
        return MockModelProcess(port: port, process: process)
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }

    deinit { stop() }
}

struct MockModelError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Collects a supervisor's events in the background; tests wait for conditions on them.
final class EventRecorder: Sendable {
    private let storage = Mutex<[CodexEvent]>([])

    func append(_ event: CodexEvent) { storage.withLock { $0.append(event) } }

    var events: [CodexEvent] { storage.withLock { $0 } }

    /// Notifications seen, as (method, params); relayed deltas with their params parsed.
    var notifications: [(method: String, params: JSONValue)] {
        events.compactMap { event in
            if case .inbound(.notification(let note)) = event { return (note.method, note.params) }
            if case .inbound(.relayed(let note)) = event { return (note.method, note.params) }
            return nil
        }
    }

    /// The deltas that came as ``CodexInbound/relayed(_:)`` (read without a params tree).
    var relayed: [CodexRelayedNotification] {
        events.compactMap { event in
            if case .inbound(.relayed(let note)) = event { return note }
            return nil
        }
    }

    /// Waits (polling) until `condition` holds for the events so far; fails after `timeout`.
    @discardableResult
    func wait<T>(
        _ what: String,
        timeout: Duration = .seconds(20),
        sourceLocation: SourceLocation = #_sourceLocation,
        until condition: ([CodexEvent]) -> T?
    ) async throws -> T {
        if let value = try? await eventually(what, timeout: timeout, { condition(events) }) { return value }
        Issue.record("timed out waiting for \(what); events: \(events.suffix(20))", sourceLocation: sourceLocation)
        throw CodexError.timeout("waiting for \(what)")
    }
}

extension CodexSupervisor {
    /// Runs the supervisor and records its events while `body` runs; then shuts it down and waits for it.
    func withRunning<T: Sendable>(
        _ body: (EventRecorder) async throws -> T
    ) async throws -> T {
        let recorder = EventRecorder()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.run() }
            group.addTask {
                for await event in self.events { recorder.append(event) }
            }
            do {
                let value = try await body(recorder)
                shutdown()
                try await group.waitForAll()
                return value
            } catch {
                shutdown()
                try? await group.waitForAll()
                throw error
            }
        }
    }
}
