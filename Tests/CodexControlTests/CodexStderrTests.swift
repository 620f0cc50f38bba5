import CodexControl
import Eventually
import Foundation
import Logging
import Synchronization
import Testing

/// Issue 46 item 4: Codex's stderr lines reach the bridge's log without terminal escape sequences (Codex styles
/// them with ANSI colours even into a pipe; the log showed each as `\u{1B}[2m`). Cost: about 0.3 s.
@Suite(.timeLimit(.minutes(1))) struct CodexStderrTests {
    @Test func stylesTitlesAndClipboardWritesAreRemoved() {
        // A line the real codex 0.163.0 wrote (RUST_LOG=info, stderr a pipe).
        let real =
            "\u{1B}[2m2026-12-05T12:18:31.155975Z\u{1B}[0m \u{1B}[32m INFO\u{1B}[0m \u{1B}[1mfs.read_file\u{1B}[0m\u{1B}[1m{\u{1B}[0m"
            + "\u{1B}[3msandboxed\u{1B}[0m\u{1B}[2m=\u{1B}[0mfalse\u{1B}[1m}\u{1B}[0m\u{1B}[2m:\u{1B}[0m new"
        #expect(TerminalEscapes.stripped(real) == "2026-12-05T12:18:31.155975Z  INFO fs.read_file{sandboxed=false}: new")
        #expect(TerminalEscapes.stripped("a\u{1B}]52;c;ZXZpbA==\u{07}b") == "ab")  // OSC 52: a clipboard write
        #expect(TerminalEscapes.stripped("a\u{1B}]0;title\u{1B}\\b") == "ab")  // the window title
        #expect(TerminalEscapes.stripped("a\u{1B}(Bb\u{1B}7c") == "abc")
        #expect(TerminalEscapes.stripped("a\u{9B}31mb") == "ab")  // the C1 CSI
        #expect(TerminalEscapes.stripped("unfinished \u{1B}[38;5") == "unfinished ")
        #expect(TerminalEscapes.stripped("plain, büro ✓") == "plain, büro ✓")
        // Other controls stay: the log handler shows them escaped.
        #expect(TerminalEscapes.stripped("bell\u{07}\u{1B}[0m") == "bell\u{07}")
    }

    @Test func theSupervisorLogsCodexStderrWithoutEscapes() async throws {
        let directory = try TestSupport.temporaryDirectory("stderr")
        let lines = Lines()
        let logger = Logger(label: "stderr") { _ in Captured(lines: lines) }
        let configuration = CodexSupervisor.Configuration(
            locator: CodexLocator(explicitPath: try FakeCodex.install(in: directory, mode: "normal")),
            server: .init(handshakeTimeout: .seconds(30), terminationGracePeriod: .seconds(2)))
        let supervisor = CodexSupervisor(configuration: configuration, logger: logger)
        try await supervisor.withRunning { recorder in
            try await recorder.wait("started 1") { $0.contains(.started(generation: 1)) ? true : nil }
            try await eventually("codex's stderr logged") { lines.value.withLock { $0.contains { $0.contains("fake codex start") } } }
        }
        let logged = lines.value.withLock { $0.filter { $0.contains("fake codex start") } }
        #expect(logged == ["2026-01-01T00:00:00Z  INFO fake codex start 1 mode normal"])
    }

    final class Lines: Sendable {
        let value = Mutex<[String]>([])
    }

    /// Keeps the messages logged with `codex.stderr`.
    struct Captured: LogHandler {
        let lines: Lines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            guard event.metadata?["codex.stderr"] != nil else { return }
            lines.value.withLock { $0.append(event.message.description) }
        }
    }
}
