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

/// Runs short commands with a deadline (through ``ChildProcess``, the one way the bridge runs a program) and
/// finds executables on `PATH`.
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

    /// Runs `executable arguments…` (looked up on `PATH` when not a path), waiting at most `timeout`; standard
    /// output and error together, at most 1 MiB.
    public func run(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(5)) async -> CommandOutcome {
        guard let path = which(executable) else { return CommandOutcome(status: nil, output: "\(executable): not found") }
        do {
            let outcome = try await ChildProcess.run(
                path, arguments: arguments, environment: environment, includeStandardError: true, timeout: timeout)
            return CommandOutcome(
                status: outcome.timedOut ? nil : outcome.status, output: outcome.text.trimmingCharacters(in: .whitespacesAndNewlines),
                timedOut: outcome.timedOut)
        } catch {
            return CommandOutcome(status: nil, output: "\(executable): \(error)")
        }
    }
}
