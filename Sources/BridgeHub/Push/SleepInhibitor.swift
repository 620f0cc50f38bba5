import ChildProcess
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Keeps the workstation awake while a turn runs: holds a logind inhibitor
/// (`systemd-inhibit --what=sleep:idle … tail --pid=<bridge> -f /dev/null`, run through ``ChildProcess``) from
/// the first running turn to the end of the last. The held command ends by itself when the bridge dies, so even
/// a killed bridge leaves no inhibitor behind. Where there is no `systemd-inhibit` or no logind, one debug line
/// and nothing else. A `Service`: graceful shutdown releases it.
public final class SleepInhibitor: Service, Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var unavailable = false
    }

    private let executable: String?
    private let environment: [String: String]
    private let logger: Logger
    private let state = Mutex(State())

    /// - Parameter environment: the environment `systemd-inhibit` is looked up in (PATH) and runs with.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger) {
        self.executable = ChildProcess.which("systemd-inhibit", path: environment["PATH"])
        var childEnvironment: [String: String] = [:]
        for key in ["PATH", "DBUS_SYSTEM_BUS_ADDRESS", "XDG_RUNTIME_DIR", "HOME", "LANG"] { childEnvironment[key] = environment[key] }
        self.environment = childEnvironment
        self.logger = logger
        if executable == nil {
            state.withLock { $0.unavailable = true }
            logger.debug("No systemd-inhibit on PATH: turns do not keep the machine awake")
        }
    }

    /// Whether the inhibitor is held now.
    public var isHeld: Bool { state.withLock { $0.task != nil } }

    /// Takes the inhibitor while `running` is true, releases it when it becomes false.
    public func update(running: Bool) {
        guard let executable else { return }
        let stop: Task<Void, Never>? = state.withLock { state in
            if running {
                guard state.task == nil, !state.unavailable else { return nil }
                state.task = Task { [environment, logger] in
                    let started = ContinuousClock.now
                    let outcome = try? await ChildProcess.run(
                        executable,
                        arguments: [
                            "--what=sleep:idle", "--who=codex-bridge", "--why=Codex turn running", "--mode=block", "tail",
                            "--pid=\(getpid())", "-f", "/dev/null",
                        ],
                        environment: environment, outputLimit: 4096, timeout: .seconds(366 * 86400))
                    guard !Task.isCancelled else { return }
                    // It ended by itself: no logind (or no permission). Say so once and stop trying.
                    logger.debug(
                        "Cannot hold a sleep inhibitor (is logind running?); turns do not keep the machine awake",
                        metadata: [
                            "bridge.inhibit.status": "\(outcome?.status.map { String($0) } ?? "none")",
                            "bridge.inhibit.after": "\(ContinuousClock.now - started)",
                        ])
                    self.gaveUp()
                }
                logger.debug("Holding a sleep inhibitor while a turn runs")
                return nil
            }
            defer { state.task = nil }
            return state.task
        }
        if let stop {
            stop.cancel()
            logger.debug("Released the sleep inhibitor")
        }
    }

    public var description: String { "SleepInhibitor" }

    /// Waits for shutdown, then releases the inhibitor and waits until its child is gone.
    public func run() async throws {
        try? await gracefulShutdown()
        let task = state.withLock { state in
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
        await task?.value
    }

    private func gaveUp() {
        state.withLock { state in
            state.unavailable = true
            state.task = nil
        }
    }
}
