import BridgeProtocol
import Logging
import ServiceLifecycle
import Synchronization

/// Keeps one `codex app-server` running for the bridge: starts it, restarts it with exponential backoff when it
/// exits or stops answering (a watchdog), and publishes its lifecycle and messages to one consumer (the hub).
///
///     let supervisor = CodexSupervisor(configuration: config, logger: logger)
///     // in a ServiceGroup with the other services; then, in the hub:
///     for await event in supervisor.events {
///         switch event {
///         case .started(let generation): ...   // > 1: a restart; threadResume before reusing a thread
///         case .inbound(.notification(let note)): ... note.kind, note.params
///         case .inbound(.serverRequest(let id, let method, let params)): ...  // later: respond(to: id, ...)
///         case .stopped(let generation, let reason): ...  // fail the running turns of that generation
///         case .inbound(.exited): break        // never sent by the supervisor
///         }
///     }
///
/// Requests (``request(_:params:timeout:)`` and the typed calls of ``CodexRequesting``) go to the current
/// child; while it restarts they wait (within their timeout); when Codex is not installed they throw
/// `.unavailable` at once, with the install hint.
///
/// - Important: The executable must call `signal(SIGPIPE, SIG_IGN)` at startup.
public final class CodexSupervisor: Service, CodexRequesting {
    /// Lifecycle and inbound messages, in order. Exactly one consumer; it must keep reading (Codex is slowed
    /// down when it falls ``Configuration/eventCapacity`` behind). Ends after ``run()`` returns.
    public let events: CodexStream<CodexEvent>
    /// How Codex is found, started and watched.
    public let configuration: Configuration

    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        enum Phase {
            case starting
            case running(CodexAppServer)
            case unavailable(String)
            case stopped
        }
        var phase = Phase.starting {
            didSet {
                // Requests waiting for a (re)start learn at once that it ended, one way or the other.
                if case .starting = phase { return }
                for waiter in phaseWaiters.values { waiter.resume() }
                phaseWaiters.removeAll()
            }
        }
        var current: CodexAppServer?
        var shuttingDown = false
        /// Requests waiting while the phase is `.starting`.
        var phaseWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    /// Creates a supervisor; nothing starts until ``run()``.
    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.events = CodexStream(capacity: configuration.eventCapacity)
    }

    /// Runs until graceful shutdown (or ``shutdown()``, or cancellation): then terminates the child (SIGTERM
    /// to its process group, SIGKILL after the grace period), emits its `.stopped`, and returns.
    public func run() async throws {
        await withGracefulShutdownHandler {
            await self.supervise()
        } onGracefulShutdown: {
            self.shutdown()
        }
        state.withLock { $0.phase = .stopped }
        events.finish()
    }

    /// Begins a graceful stop without a ServiceGroup (tests, one-shot tools).
    public func shutdown() {
        let server = state.withLock { state in
            state.shuttingDown = true
            return state.current
        }
        server?.terminate()
    }

    /// The generation of the child that currently answers requests, or nil while none does.
    public var currentGeneration: Int? {
        state.withLock { state in
            if case .running(let server) = state.phase { return server.generation }
            return nil
        }
    }

    /// Sends a request to the current child.
    /// - Throws: `CodexError` `.unavailable` (Codex not installed, or the supervisor stopped), `.timeout` (also
    ///   when no child came up in time), `.exited`, `.rpc`.
    public func request(_ method: String, params: JSONValue = [:], timeout: Duration = .seconds(60)) async throws
        -> JSONValue
    {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let server = try await runningServer(before: deadline, for: method)
        return try await server.request(method, params: params, timeout: ContinuousClock.now.duration(to: deadline))
    }

    /// Answers a server request (an approval) of the current child, e.g. `["decision": "accept"]`.
    /// - Throws: `.exited` when the child that asked is gone (its generation ended).
    public func respond(to id: CodexRequestID, result: JSONValue) throws {
        try server(of: id).respond(to: id, result: result)
    }

    /// Answers a server request with a JSON-RPC error.
    public func respond(to id: CodexRequestID, errorCode: Int, message: String) throws {
        try server(of: id).respond(to: id, errorCode: errorCode, message: message)
    }

    // MARK: - Internals

    private var isShuttingDown: Bool { state.withLock { $0.shuttingDown } }

    private func server(of id: CodexRequestID) throws -> CodexAppServer {
        let server: CodexAppServer? = state.withLock { state in
            if case .running(let server) = state.phase, server.generation == id.generation { return server }
            return nil
        }
        guard let server else { throw CodexError.exited("the codex that sent request \(id) is gone") }
        return server
    }

    private func runningServer(before deadline: ContinuousClock.Instant, for method: String) async throws
        -> CodexAppServer
    {
        for _ in 0..<Int.max {
            let phase = state.withLock { $0.phase }
            switch phase {
            case .running(let server): return server
            case .unavailable(let message): throw CodexError.unavailable(message)
            case .stopped: throw CodexError.unavailable("the codex supervisor is not running")
            case .starting:
                guard ContinuousClock.now < deadline else {
                    throw CodexError.timeout("codex is (re)starting; \(method) was not sent")
                }
                await waitWhileStarting(until: deadline)
            }
        }
        throw CodexError.unavailable("unreachable")
    }

    /// Returns when the phase leaves `.starting` (the child runs, is unavailable, or the supervisor stopped)
    /// or at `deadline`, whichever comes first.
    private func waitWhileStarting(until deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id: Int? = state.withLock { state in
                guard case .starting = state.phase else { return nil }
                state.nextWaiter += 1
                state.phaseWaiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let id else {
                continuation.resume()
                return
            }
            // Whoever takes the waiter out of the state resumes it: the phase change or this deadline.
            Task {
                try? await Task.sleep(until: deadline)
                self.state.withLock { $0.phaseWaiters.removeValue(forKey: id) }?.resume()
            }
        }
    }

    private func supervise() async {
        var generation = 0
        var backoff = configuration.initialBackoff
        var reportedMissing = false
        var unreachableSince: ContinuousClock.Instant?
        while !isShuttingDown, !Task.isCancelled {
            let path: String
            do {
                // A shared app-server is reached through its socket: no executable is needed to connect.
                path = configuration.server.socketPath == nil ? try await configuration.locator.locate() : "codex"
            } catch {
                // Once as an error (with the install hint); the retries that follow only at debug level.
                logger.log(
                    level: reportedMissing ? .debug : .error, "codex not found; looking again with backoff",
                    metadata: ["error": "\(error.message)", "backoff": "\(backoff)"])
                reportedMissing = true
                state.withLock { $0.phase = .unavailable(error.message) }
                await pause(backoff)
                backoff = min(backoff * 2, configuration.maxBackoff)
                continue
            }
            if reportedMissing {
                logger.notice("codex found", metadata: ["codex.path": "\(path)"])
                reportedMissing = false
            }
            generation += 1
            let server = CodexAppServer(
                executablePath: path,
                options: configuration.server,
                generation: generation,
                sink: events,
                logger: logger
            )
            let startedAt = ContinuousClock.now
            let (reason, started) = await runGeneration(server)
            if isShuttingDown || Task.isCancelled { break }
            if startedAt.duration(to: .now) >= configuration.healthyUptime { backoff = configuration.initialBackoff }
            if started { unreachableSince = nil }
            if let socketPath = configuration.server.socketPath, !started {
                // Nobody answers at the socket (the user stopped the shared app-server): after a short grace
                // (one that is just starting), requests fail at once with `.unavailable` until a connection is
                // back, instead of waiting out their timeouts.
                let since = unreachableSince ?? .now
                unreachableSince = since
                state.withLock { state in
                    if case .starting = state.phase, since.duration(to: .now) >= configuration.unavailableAfter {
                        state.phase = .unavailable("no shared codex app-server answers at \(socketPath); reconnecting (\(reason))")
                    }
                }
            }
            logger.log(
                level: started || configuration.server.socketPath == nil ? .warning : .debug,
                configuration.server.socketPath == nil
                    ? "codex stopped; restarting" : "shared codex app-server not reachable; reconnecting",
                metadata: ["codex.generation": "\(generation)", "reason": "\(reason)", "backoff": "\(backoff)"]
            )
            await pause(backoff)
            backoff = min(backoff * 2, configuration.maxBackoff)
        }
    }

    /// Runs one child to its end; returns why it ended. The child's reader writes its messages straight into
    /// ``events`` (no hop through here), once `.started` is published.
    private func runGeneration(_ server: CodexAppServer) async -> (reason: String, started: Bool) {
        let shuttingDown = state.withLock { state in
            state.current = server
            if case .running = state.phase { state.phase = .starting }
            return state.shuttingDown
        }
        if shuttingDown { server.terminate() }
        let watchdogVerdict = FailureNote()
        return await withTaskGroup(of: CodexExitReason?.self) { group in
            group.addTask { await server.run() }
            var started = false
            if (try? await server.ready()) != nil {
                state.withLock { $0.phase = .running(server) }
                await events.send(.started(generation: server.generation))
                started = true
                server.deliveryGate.open(true)
                group.addTask {
                    if let verdict = await self.watch(server) {
                        watchdogVerdict.note(verdict)
                        server.terminate()
                    }
                    return nil
                }
            } else {
                server.deliveryGate.open(false)
            }
            var exitReason = CodexExitReason.failed("codex app-server ended")
            for await result in group {
                if let result {
                    exitReason = result
                    break
                }
            }
            state.withLock { state in
                state.current = nil
                if case .running(let running) = state.phase, running === server { state.phase = .starting }
            }
            group.cancelAll()
            await group.waitForAll()
            let reason = watchdogVerdict.value ?? exitReason.description
            if started { await events.send(.stopped(generation: server.generation, reason: reason)) }
            return (reason, started)
        }
    }

    /// Pings the child until it ends; returns a verdict when it stopped answering.
    private func watch(_ server: CodexAppServer) async -> String? {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: configuration.watchdogInterval)
                _ = try await server.request(
                    "thread/list",
                    params: ["limit": 1, "useStateDbOnly": true],
                    timeout: configuration.watchdogTimeout
                )
                failures = 0
            } catch let error as CodexError where error.code == .timeout {
                if server.isWaitingForConsumer {
                    failures = 0
                    continue
                }
                failures += 1
                logger.warning("codex did not answer the watchdog", metadata: ["failures": "\(failures)"])
                if failures >= configuration.watchdogFailures {
                    return "codex stopped answering (\(failures) watchdog requests timed out)"
                }
            } catch let error as CodexError where error.code == .rpc {
                failures = 0  // it answered
            } catch {
                return nil  // exited or cancelled
            }
        }
        return nil
    }

    /// Sleeps `duration`, waking early on shutdown or cancellation.
    private func pause(_ duration: Duration) async {
        let deadline = ContinuousClock.now.advanced(by: duration)
        while ContinuousClock.now < deadline, !isShuttingDown, !Task.isCancelled {
            try? await Task.sleep(for: min(.milliseconds(50), ContinuousClock.now.duration(to: deadline)))
        }
    }
}
