import ChildProcess
import Foundation

/// The outcome of a short external command (`codex --version`, `avahi-daemon --check`, …).
public struct CommandOutcome: Sendable, Hashable {
    /// The exit status; nil when the command could not start or timed out.
    public var status: Int32?
    /// Standard output and error, joined, trimmed.
    public var output: String
    /// Whether it was killed at the deadline.
    public var timedOut: Bool

    public init(status: Int32?, output: String, timedOut: Bool = false) {
        self.status = status
        self.output = output
        self.timedOut = timedOut
    }

    /// Exit status 0.
    public var succeeded: Bool { status == 0 }
}

/// Runs short commands with a deadline and finds executables on `PATH`.
///
/// Output goes to a temporary file, not a pipe: a grandchild that keeps a pipe open cannot make the wait hang.
public struct CommandRunner: Sendable {
    /// The environment commands see and whose `PATH` is searched.
    public var environment: [String: String]

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The absolute path of `name` on `PATH` (or `name` itself when it contains a `/` and is executable). Only
    /// absolute `PATH` entries are searched: a relative one (`.`) would run whatever the current directory holds.
    public func which(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        return ChildProcess.which(name, path: environment["PATH"])
    }

    /// Runs `executable arguments…` (looked up on `PATH` when not a path), waiting at most `timeout`.
    public func run(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(5)) -> CommandOutcome {
        guard let path = which(executable) else { return CommandOutcome(status: nil, output: "\(executable): not found") }
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("codex-bridge-cmd-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: outputURL.path, contents: nil), let handle = try? FileHandle(forWritingTo: outputURL)
        else {
            return CommandOutcome(status: nil, output: "cannot create a temporary file")
        }
        defer {
            try? handle.close()
            try? FileManager.default.removeItem(at: outputURL)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        do {
            try process.run()
        } catch {
            return CommandOutcome(status: nil, output: "\(executable): \(error)")
        }
        let deadline = ContinuousClock.now + timeout
        var timedOut = false
        while process.isRunning {
            if ContinuousClock.now >= deadline {
                timedOut = true
                process.terminate()
                let grace = ContinuousClock.now + .seconds(1)
                while process.isRunning, ContinuousClock.now < grace { usleep(10_000) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                break
            }
            usleep(10_000)
        }
        process.waitUntilExit()
        let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        let output = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return CommandOutcome(status: timedOut ? nil : process.terminationStatus, output: output, timedOut: timedOut)
    }
}
