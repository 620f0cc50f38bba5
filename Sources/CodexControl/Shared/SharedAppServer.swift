import Foundation
import Logging
import ServiceLifecycle
import Subprocess
import Synchronization

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// Makes sure a shared `codex app-server --listen unix://PATH` runs for `serve --shared`.
///
/// At start: when something already answers at the socket (the user's managed daemon, an app-server started
/// by hand, another bridge's), nothing is started: the bridge joins it, and if the user later stops it the
/// bridge only reconnects when it is back (stopping it was the user's choice). Otherwise this service starts
/// one as its own child (own process group, the `serve --codex-config` overrides, stale socket file removed),
/// and restarts it with backoff when it exits — unless meanwhile another app-server took the socket, which the
/// bridge then joins. On shutdown the child is terminated (SIGTERM to its group, then SIGKILL).
public final class SharedAppServer: Service {
    /// The socket the app-server listens on.
    public let socketPath: String
    /// How codex is found, the `-c` overrides and the environment (reused from the private child's settings).
    public let configuration: CodexSupervisor.Configuration
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var launched = false
        var shuttingDown = false
    }

    /// Prepares the service; nothing happens until ``run()``.
    public init(socketPath: String, configuration: CodexSupervisor.Configuration, logger: Logger) {
        self.socketPath = socketPath
        self.configuration = configuration
        self.logger = logger
    }

    /// Whether this bridge started (and supervises) the app-server, rather than joining one.
    public var launchedByBridge: Bool { state.withLock { $0.launched } }

    /// The arguments of the child: `app-server --listen unix://PATH` and each override as `-c KEY=VALUE`.
    public var arguments: [String] {
        ["app-server", "--listen", "unix://\(socketPath)"] + configuration.server.configOverrides.flatMap { ["-c", $0] }
    }

    public func run() async throws {
        await withGracefulShutdownHandler {
            await self.supervise()
        } onGracefulShutdown: {
            self.state.withLock { $0.shuttingDown = true }
        }
    }

    private var isShuttingDown: Bool { state.withLock { $0.shuttingDown } || Task.isCancelled }

    private func supervise() async {
        if SharedSocket.answers(at: socketPath) {
            logger.notice("Joining the shared codex app-server already running", metadata: ["codex.socket": "\(socketPath)"])
            return
        }
        var backoff = configuration.initialBackoff
        while !isShuttingDown {
            if SharedSocket.answers(at: socketPath) {
                logger.notice("Another shared codex app-server took the socket; joining it", metadata: ["codex.socket": "\(socketPath)"])
                return
            }
            let startedAt = ContinuousClock.now
            let reason: String
            do {
                let path = try await configuration.locator.locate()
                try prepareSocketDirectory()
                reason = await runChild(path)
            } catch {
                reason = "\(error)"
            }
            if isShuttingDown { break }
            if startedAt.duration(to: .now) >= configuration.healthyUptime { backoff = configuration.initialBackoff }
            logger.warning(
                "The shared codex app-server stopped; restarting it",
                metadata: ["codex.socket": "\(socketPath)", "reason": "\(reason)", "backoff": "\(backoff)"])
            await pause(backoff)
            backoff = min(backoff * 2, configuration.maxBackoff)
        }
    }

    /// The socket's directory, private to the user (0700), and no stale socket in the way.
    private func prepareSocketDirectory() throws {
        let directory = (socketPath as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        SharedSocket.removeStale(at: socketPath)
    }

    /// Runs one child until it exits or shutdown begins; returns why it ended.
    private func runChild(_ executable: String) async -> String {
        state.withLock { $0.launched = true }
        var platformOptions = PlatformOptions()
        platformOptions.processGroupID = 0
        platformOptions.teardownSequence = [
            .gracefulShutDown(toProcessGroup: true, allowedDurationToNextStep: configuration.server.terminationGracePeriod)
        ]
        let teardown = platformOptions.teardownSequence
        var environment: [Environment.Key: String?] = [:]
        for (key, value) in configuration.server.environment { environment[Environment.Key(stringLiteral: key)] = value }
        logger.notice("Starting the shared codex app-server", metadata: ["codex.path": "\(executable)", "codex.socket": "\(socketPath)"])
        logger.debug("shared codex app-server arguments", metadata: ["codex.args": "\(arguments)"])
        do {
            let result = try await Subprocess.run(
                .path(FilePath(executable)),
                arguments: Arguments(arguments),
                environment: .inherit.updating(environment),
                workingDirectory: configuration.server.workingDirectory.map { FilePath($0) },
                platformOptions: platformOptions,
                input: .none,
                output: .discarded,
                error: .sequence
            ) { execution in
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        while !Task.isCancelled, !self.state.withLock({ $0.shuttingDown }) {
                            try? await Task.sleep(for: .milliseconds(100))
                        }
                        if !Task.isCancelled { await execution.teardown(using: teardown) }
                    }
                    do {
                        for try await line in execution.standardError.strings(bufferingPolicy: .maxLineLength(1 << 20)) {
                            let text = TerminalEscapes.stripped(line)
                            if !text.isEmpty { logger.info("\(text)", metadata: ["codex.stderr": "true", "codex.shared": "true"]) }
                        }
                    } catch {}
                    group.cancelAll()
                }
            }
            return "\(result.terminationStatus)"
        } catch {
            return "cannot run \(executable): \(error)"
        }
    }

    private func pause(_ duration: Duration) async {
        let deadline = ContinuousClock.now.advanced(by: duration)
        while ContinuousClock.now < deadline, !isShuttingDown {
            try? await Task.sleep(for: min(.milliseconds(50), ContinuousClock.now.duration(to: deadline)))
        }
    }
}
