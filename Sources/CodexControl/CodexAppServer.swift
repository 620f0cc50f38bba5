import BridgeProtocol
import Logging
import Synchronization

/// One live `codex app-server` child and its JSON-RPC over stdio.
///
/// Start it with ``run()`` in a task of its own; it spawns the child (own process group, inherited environment
/// plus ``Options/environment``), sends `initialize` + `initialized`, then pumps messages until the child exits
/// or ``terminate()`` is called, and returns how it ended. Meanwhile, from any task:
/// - ``request(_:params:timeout:)`` sends a request and awaits its answer (ids are correlated; writes to
///   stdin are serialized);
/// - ``inbound`` yields notifications and Codex's own requests (approvals), then ``CodexInbound/exited(_:)``;
/// - ``respond(to:result:)`` answers one of Codex's requests with its id echoed exactly.
///
/// - Important: The executable must ignore SIGPIPE (`signal(SIGPIPE, SIG_IGN)` at startup): writing to a
///   child that already exited otherwise kills the whole process.
///
/// Most code wants a ``CodexSupervisor``, which restarts the child; use this type alone for one-shot work.
public final class CodexAppServer: Sendable, CodexRequesting {
    /// The `codex` executable this child runs.
    public let executablePath: String
    /// How the child is started.
    public let options: Options
    /// Which child this is for its supervisor (1, 2, ...); part of every ``CodexRequestID`` it hands out.
    public let generation: Int
    /// Notifications and server requests, in the order Codex wrote them, then `.exited`. One consumer only;
    /// when it falls ``Options/inboundCapacity`` messages behind, reading from Codex pauses (so don't await
    /// a ``request(_:params:timeout:)`` from the loop that consumes this stream).
    public let inbound: CodexStream<CodexInbound>

    /// Under a supervisor: its event stream, which gets this child's messages straight from the reader (once
    /// the supervisor published `.started` and opened ``deliveryGate``); ``inbound`` is then unused.
    let sink: CodexStream<CodexEvent>?
    /// Opened by the supervisor after `.started` (true) or when the handshake failed (false: drop).
    let deliveryGate = DeliveryGate()
    let logger: Logger
    let outbox: AsyncStream<[UInt8]>
    let outboxWriter: AsyncStream<[UInt8]>.Continuation
    let stopRequests: AsyncStream<Void>
    let stopRequester: AsyncStream<Void>.Continuation
    let state = Mutex(State())

    struct State {
        enum Phase {
            case idle, running
            case exited(CodexExitReason)
        }
        var phase = Phase.idle
        var nextID = 1
        var pending: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
        var initializeResult: JSONValue?
        var readyFailure: CodexError?
        var readyWaiters: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
        var nextWaiter = 0
        /// The id of the `initialize` request: its answer is where the reader waits for ``deliveryGate``.
        var initializeID: Int?
    }

    /// Prepares a child; nothing runs until ``run()``.
    /// - Parameters:
    ///   - executablePath: the `codex` binary (see ``CodexLocator``).
    ///   - options: arguments, environment and limits.
    ///   - generation: the number put into this child's ``CodexRequestID``s.
    ///   - logger: gets the child's stderr lines and lifecycle messages.
    public convenience init(executablePath: String, options: Options = Options(), generation: Int = 1, logger: Logger) {
        self.init(executablePath: executablePath, options: options, generation: generation, sink: nil, logger: logger)
    }

    /// A child whose messages go to `sink` (a supervisor's stream) instead of ``inbound``.
    init(executablePath: String, options: Options, generation: Int, sink: CodexStream<CodexEvent>?, logger: Logger) {
        self.sink = sink
        self.executablePath = executablePath
        self.options = options
        self.generation = generation
        var logger = logger
        logger[metadataKey: "codex.generation"] = "\(generation)"
        self.logger = logger
        self.inbound = CodexStream(capacity: options.inboundCapacity)
        (outbox, outboxWriter) = AsyncStream.makeStream(of: [UInt8].self)
        (stopRequests, stopRequester) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Waits until the `initialize` handshake is done and returns Codex's answer (`userAgent`, `codexHome`, ...).
    /// Throws `.exited` when the child ends first.
    public func ready() async throws -> JSONValue {
        enum Start {
            case done(JSONValue)
            case wait(Int)
        }
        let start: Start = try state.withLock { state in
            if let result = state.initializeResult { return .done(result) }
            if let failure = state.readyFailure { throw failure }
            state.nextWaiter += 1
            return .wait(state.nextWaiter)
        }
        guard case .wait(let waiter) = start else {
            if case .done(let result) = start { return result }
            return .null
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, any Error>) in
                enum Now {
                    case value(JSONValue)
                    case error(any Error)
                    case registered
                }
                let now: Now = state.withLock { state in
                    if let result = state.initializeResult { return .value(result) }
                    if let failure = state.readyFailure { return .error(failure) }
                    if Task.isCancelled { return .error(CancellationError()) }
                    state.readyWaiters[waiter] = continuation
                    return .registered
                }
                switch now {
                case .value(let value): continuation.resume(returning: value)
                case .error(let error): continuation.resume(throwing: error)
                case .registered: break
                }
            }
        } onCancel: {
            state.withLock { $0.readyWaiters.removeValue(forKey: waiter) }?.resume(throwing: CancellationError())
        }
    }

    /// Sends a request once the handshake is done and returns its `result`.
    /// - Throws: `CodexError` `.rpc` (Codex's error code and message), `.timeout`, `.exited`; or
    ///   `CancellationError`.
    public func request(_ method: String, params: JSONValue = [:], timeout: Duration = .seconds(60)) async throws
        -> JSONValue
    {
        try await withCodexTimeout(timeout, "codex did not answer \(method) within \(timeout)") {
            _ = try await self.ready()
            return try await self.sendRequest(method, params: params)
        }
    }

    /// Answers one of Codex's requests (``CodexInbound/serverRequest(id:method:params:)``) with a result,
    /// e.g. `["decision": "accept"]` for an approval.
    /// - Throws: `.exited` when the child that asked is gone (another generation, or exited).
    public func respond(to id: CodexRequestID, result: JSONValue) throws {
        try send(.response(id: id.value, result: result), answering: id)
    }

    /// Answers one of Codex's requests with a JSON-RPC error.
    public func respond(to id: CodexRequestID, errorCode: Int, message: String) throws {
        try send(.errorResponse(id: id.value, code: errorCode, message: message, data: nil), answering: id)
    }

    /// Sends a notification (no answer).
    public func notify(_ method: String, params: JSONValue = .null) throws {
        try send(.notification(method: method, params: params), answering: nil)
    }

    /// Asks the child to stop: SIGTERM to its process group, SIGKILL after ``Options/terminationGracePeriod``.
    /// ``run()`` returns once it is gone. Cancelling the task that runs ``run()`` does the same.
    public func terminate() {
        stopRequester.yield(())
    }

    /// True while reading from Codex is paused because the ``inbound`` consumer is behind.
    public var isWaitingForConsumer: Bool { sink?.isProducerWaiting ?? inbound.isProducerWaiting }

    // MARK: - Internals

    private func send(_ message: CodexWireMessage, answering id: CodexRequestID?) throws {
        if let id, id.generation != generation {
            throw CodexError.exited("request \(id) came from an earlier codex, which is gone")
        }
        let bytes = try message.encoded()
        try state.withLock { state in
            guard case .running = state.phase else { throw CodexError.exited("codex app-server is not running") }
            outboxWriter.yield(bytes)
        }
    }

    /// Sends a request now (no handshake wait) and awaits its answer.
    func sendRequest(_ method: String, params: JSONValue) async throws -> JSONValue {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let bytes = try CodexWireMessage.request(id: .number(Double(id)), method: method, params: params).encoded()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, any Error>) in
                let failure: (any Error)? = state.withLock { state in
                    if Task.isCancelled { return CancellationError() }
                    guard case .running = state.phase else {
                        return CodexError.exited("codex app-server is not running (\(method))")
                    }
                    state.pending[id] = continuation
                    if method == "initialize" { state.initializeID = id }
                    outboxWriter.yield(bytes)
                    return nil
                }
                if let failure { continuation.resume(throwing: failure) }
            }
        } onCancel: {
            state.withLock { $0.pending.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// Routes an answer to the request that waits for it.
    func resolve(id: JSONValue, with result: Result<JSONValue, CodexError>) {
        guard let number = id.intValue, let continuation = state.withLock({ $0.pending.removeValue(forKey: number) })
        else {
            logger.debug("codex answered an unknown or abandoned request", metadata: ["codex.rpc.id": "\(id)"])
            return
        }
        continuation.resume(with: result.mapError { $0 as any Error })
    }

    /// Marks the handshake done (or failed) and wakes ``ready()`` waiters.
    func finishHandshake(_ result: Result<JSONValue, CodexError>) {
        let waiters = state.withLock { state in
            switch result {
            case .success(let value): state.initializeResult = value
            case .failure(let error): state.readyFailure = error
            }
            defer { state.readyWaiters.removeAll() }
            return Array(state.readyWaiters.values)
        }
        for waiter in waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
    }

    /// Stops taking requests and fails every pending one with `error`.
    func failPending(_ error: CodexError, phase: State.Phase? = nil) {
        let (pending, waiters) = state.withLock { state in
            if let phase { state.phase = phase }
            if state.initializeResult == nil, state.readyFailure == nil { state.readyFailure = error }
            defer {
                state.pending.removeAll()
                state.readyWaiters.removeAll()
            }
            return (Array(state.pending.values), Array(state.readyWaiters.values))
        }
        for continuation in pending { continuation.resume(throwing: error) }
        for waiter in waiters { waiter.resume(throwing: error) }
    }
}
