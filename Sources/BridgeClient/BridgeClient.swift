import BridgeProtocol
import Foundation
import Logging

/// A client of one bridge: connects (trying candidate addresses, pairing, pinning), resumes and reconnects on
/// its own, correlates requests with answers, and delivers the journaled messages of its subscriptions.
///
/// ```swift
/// let client = BridgeClient(configuration: .init(target: try BridgeTarget(parsing: url)), logger: logger)
/// let ack = try await client.connect()
/// Task { for await message in client.events { … } }
/// let started = try await client.send(BridgeRequest(.startThread, StartThread(cwd: "/src/app", prompt: "fix the tests")))
/// ```
public actor BridgeClient {
    /// Where the client is.
    public enum Status: Sendable, Hashable {
        /// Connected (again): the handshake's answer (see `resume` after a reconnect) and the address used.
        case connected(HelloAck, BridgeEndpoint)
        /// The connection was lost; trying again after `delay` (attempt counts from 1).
        case reconnecting(attempt: Int, delay: Duration, reason: String)
        /// Gave up; ``events`` has ended.
        case failed(BridgeClientError)
        /// ``close()`` was called.
        case closed
    }

    private enum State {
        case idle, connected, reconnecting
        case failed(BridgeClientError)
        case closed
    }

    private struct Pending {
        var request: BridgeRequest
        /// Nil for the client's own requests (re-subscribing after a reconnect).
        var continuation: CheckedContinuation<BridgeResponse, any Error>?
    }

    /// `event`, `approvalRequest` and `approvalResolved` of the subscribed threads, each once, in arrival order.
    public nonisolated let events: AsyncStream<ServerMessage>
    /// With ``BridgeClientConfiguration/relaysFrames``: what ``events`` carries otherwise, each event with its
    /// `data` as text.
    public nonisolated let relayed: AsyncStream<RelayedFrame>
    /// Connection changes.
    public nonisolated let statuses: AsyncStream<Status>

    private let configuration: BridgeClientConfiguration
    private let transport: any BridgeTransport
    private let logger: Logger
    private let eventInput: AsyncStream<ServerMessage>.Continuation
    private let relayInput: AsyncStream<RelayedFrame>.Continuation
    private let statusInput: AsyncStream<Status>.Continuation

    private var state = State.idle
    private var connection: (any BridgeConnection)?
    private var preferred: BridgeEndpoint?
    private var credential: String
    private var sendsDevice: Bool
    private var pending: [String: Pending] = [:]
    private var subscriptions = Set<String>()
    private var seqs = SeqTracker()
    private var unacked = 0
    /// Bytes of relayed frames handed to ``relayed`` on this connection and not yet ``consumed(_:)``.
    private var relayHeld = 0
    private var supervisor: Task<Void, Never>?

    /// The device token handed out by pairing (store it and pass it as ``BridgeClientConfiguration/token`` later).
    public private(set) var deviceToken: String?
    /// The paired device this client is authenticated as.
    public private(set) var deviceId: String?
    /// The bridge, from the last `helloAck`.
    public private(set) var server: ServerInfo?
    /// What this connection may do (`helloAck.scopes`, then `scopesChanged`).
    public private(set) var scopes: Scopes?

    /// A client; nothing happens until ``connect()``.
    public init(configuration: BridgeClientConfiguration, transport: any BridgeTransport = WebSocketTransport(), logger: Logger) {
        self.configuration = configuration
        self.transport = transport
        self.logger = logger
        (events, eventInput) = AsyncStream.makeStream(of: ServerMessage.self)
        (relayed, relayInput) = AsyncStream.makeStream(of: RelayedFrame.self)
        (statuses, statusInput) = AsyncStream.makeStream(of: Status.self)
        var credential = configuration.token ?? ""
        var sendsDevice = false
        if configuration.token == nil, case .pairing(let url) = configuration.target {
            credential = url.credential.token
            if case .pairingCode = url.credential { sendsDevice = true }
        }
        self.credential = credential
        self.sendsDevice = sendsDevice
        self.seqs = SeqTracker(cursor: configuration.resumeFrom)
    }

    /// The resume cursor: the highest seq received (or the bridge's at the first connection).
    public var lastSeq: Int64? { seqs.cursor }

    /// Connects to the first candidate that completes the handshake, then keeps the connection (reconnecting
    /// with backoff when it is lost).
    /// - Throws: ``BridgeClientError``: `authenticationFailed` (with the bridge's code), `pinMismatch`,
    ///   `connectionFailed` listing what each address answered.
    @discardableResult
    public func connect() async throws(BridgeClientError) -> HelloAck {
        guard case .idle = state else { throw .closed }
        let (connection, ack, endpoint) = try await openAny()
        adopt(connection, ack: ack, endpoint: endpoint)
        supervisor = Task { await self.supervise(connection) }
        return ack
    }

    /// Sends a request and waits for its answer. While reconnecting the request waits and is sent (again, with
    /// the same id, which the bridge answers once) when the connection is back.
    /// - Throws: ``BridgeRequestError`` when the bridge answers `error`; ``BridgeClientError`` when the client
    ///   fails or closes first.
    public func send(_ request: BridgeRequest) async throws -> BridgeResponse {
        try await send(request, id: UUID().uuidString.lowercased())
    }

    /// ``send(_:)`` with a request id the caller chose (up to 128 characters): the bridge answers a retried id
    /// once, so a relay that forwards a phone's retry with the same id never acts twice.
    public func send(_ request: BridgeRequest, id: String) async throws -> BridgeResponse {
        switch state {
        case .failed(let error): throw error
        case .closed, .idle: throw BridgeClientError.closed
        case .connected, .reconnecting: break
        }
        guard pending[id] == nil else { throw BridgeClientError.connectionFailed("request id \(id.prefix(64)) is already waiting") }
        return try await withCheckedThrowingContinuation { continuation in
            pending[id] = Pending(request: request, continuation: continuation)
            if let connection { transmit(id: id, request: request, on: connection) }
        }
    }

    /// With ``BridgeClientConfiguration/relaysFrames``: the relay is done with `frames` (relayed, or dropped),
    /// so their bytes leave the connection's inbound window (``WebSocketTransport/inboundWindowBytes``) and the
    /// connection reads on. A frame of an earlier connection counts against the current one's (a relay that
    /// reconnects on its own, as the fleet's links do, never mixes them).
    public func consumed(_ frames: [RelayedFrame]) {
        let bytes = min(frames.reduce(0) { $0 + $1.receivedBytes }, relayHeld)
        relayHeld -= bytes
        connection?.consumed(bytes: bytes)
    }

    /// The current connection's inbound window, if its transport keeps one.
    public var inboundWindow: InboundWindow? { connection?.window }

    /// Sends an application-level `ping` (the answer is not awaited).
    public func ping(nonce: String = UUID().uuidString) {
        connection.map { write(.ping(Ping(nonce: nonce)), on: $0) }
    }

    /// Closes the connection and ends ``events``; waiting requests fail with `closed`.
    public func close() {
        guard !isFinished else { return }
        state = .closed
        connection?.close()
        connection = nil
        supervisor?.cancel()
        finish(with: .closed, status: .closed)
    }

    // MARK: - Connecting

    private var isFinished: Bool {
        switch state {
        case .failed, .closed: true
        default: false
        }
    }

    /// Tries every candidate (the last one that worked first); a failure that retrying cannot fix ends the search.
    private func openAny() async throws(BridgeClientError) -> (any BridgeConnection, HelloAck, BridgeEndpoint) {
        var candidates = configuration.target.candidates
        if let preferred, let index = candidates.firstIndex(of: preferred) {
            candidates.remove(at: index)
            candidates.insert(preferred, at: 0)
        }
        guard !candidates.isEmpty else { throw .invalidAddress("", "no address to connect to") }
        var failures: [String] = []
        for endpoint in candidates {
            do {
                let (connection, ack) = try await open(endpoint)
                return (connection, ack, endpoint)
            } catch let error as BridgeClientError where !error.isRetryable {
                throw error
            } catch {
                logger.debug("bridge candidate failed", metadata: ["bridge.endpoint": "\(endpoint)", "bridge.error": "\(error)"])
                failures.append("\(endpoint): \(error)")
            }
        }
        throw .connectionFailed("could not connect to the bridge (" + failures.joined(separator: "; ") + ")")
    }

    /// Connects to one address and completes the handshake.
    private func open(_ endpoint: BridgeEndpoint) async throws -> (any BridgeConnection, HelloAck) {
        let hello = Hello(
            token: credential, device: sendsDevice ? configuration.device : nil,
            resume: seqs.cursor.map(ResumeCursor.init(lastSeq:)), clientId: configuration.clientId)
        let transport = self.transport
        let logger = self.logger
        let pin = configuration.target.pin
        let clock = configuration.clock
        let connection = try await Self.withTimeout(configuration.handshakeTimeout, on: clock, what: "\(endpoint) to connect") {
            try await transport.connect(to: endpoint, pin: pin, logger: logger)
        }
        write(.hello(hello), on: connection)
        let ack: HelloAck
        do {
            var answer = try await Self.withTimeout(configuration.handshakeTimeout, on: clock, what: "helloAck from \(endpoint)") {
                try await Self.firstAnswer(on: connection)
            }
            if case .pending(let pending) = answer {
                // The bridge waits for its workstation to confirm this pairing (at most until `expiresAt`, a time
                // from the network: range-checked before it becomes a duration).
                let wait = try ServerFrameRules.pairingWait(expiresAt: pending.expiresAt, now: Date().timeIntervalSince1970)
                configuration.onPairingPending?(pending)
                answer = try await Self.withTimeout(wait, on: clock, what: "the workstation to confirm the pairing") {
                    try await Self.firstAnswer(on: connection)
                }
            }
            guard case .ack(let received) = answer else {
                throw BridgeClientError.protocolViolation("the server sent pairingPending twice")
            }
            ack = received
        } catch {
            connection.close()
            throw error
        }
        guard ack.ok else {
            connection.close()
            throw BridgeClientError.authenticationFailed(ack.error)
        }
        return (connection, ack)
    }

    /// What a bridge answers `hello` with: `helloAck`, or first `pairingPending` when it confirms pairings.
    private enum HelloAnswer: Sendable {
        case ack(HelloAck)
        case pending(PairingPending)
    }

    private static func firstAnswer(on connection: any BridgeConnection) async throws -> HelloAnswer {
        for await event in connection.incoming {
            switch event {
            case .text(let text):
                switch try ServerFrameRules.decode(text) {
                case .helloAck(let ack)?: return .ack(ack)
                case .pairingPending(let pending)?: return .pending(pending)
                case nil: continue  // a kind this client does not know
                case let other?: throw BridgeClientError.protocolViolation("the server answered hello with \(other.kind)")
                }
            case .violation(let why):
                throw BridgeClientError.protocolViolation(why)
            case .closed(let code, let reason):
                if code == Int(BridgeCloseCode.policyViolation) { throw BridgeClientError.closedByPolicy(reason) }
                throw BridgeClientError.connectionFailed("closed before helloAck (\(reason ?? code.map(String.init) ?? "no reason"))")
            }
        }
        throw BridgeClientError.connectionFailed("closed before helloAck")
    }

    private static func withTimeout<T: Sendable>(
        _ limit: Duration, on clock: any Clock<Duration>, what: String, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await clock.sleep(for: limit)
                throw BridgeClientError.timeout(what)
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// Takes over a connection whose handshake succeeded: credentials, cursor, subscriptions, waiting requests.
    private func adopt(_ connection: any BridgeConnection, ack: HelloAck, endpoint: BridgeEndpoint) {
        self.connection = connection
        preferred = endpoint
        state = .connected
        relayHeld = 0
        server = ack.server ?? server
        deviceId = ack.deviceId ?? deviceId
        scopes = ack.scopes ?? scopes
        if let token = ack.deviceToken {
            deviceToken = token
            credential = token
            sendsDevice = false
        }
        if ack.resume == .gap {
            logger.warning("bridge could not replay everything since the cursor (gap); re-read threads")
            seqs.restart(at: ack.lastSeq)
        } else {
            seqs.adopt(serverLastSeq: ack.lastSeq)
        }
        let restored = Set(ack.restoredSubscriptions ?? [])
        for threadId in subscriptions.subtracting(restored).sorted() {
            let request = BridgeRequest(.subscribe, Subscribe(threadId: threadId, afterSeq: ack.resume == .ok ? seqs.cursor : nil))
            let id = "resubscribe-" + UUID().uuidString.lowercased()
            pending[id] = Pending(request: request, continuation: nil)
        }
        for (id, waiting) in pending.sorted(by: { $0.key < $1.key }) {
            transmit(id: id, request: waiting.request, on: connection)
        }
        statusInput.yield(.connected(ack, endpoint))
    }

    // MARK: - Running

    /// Reads the connection; when it ends, reconnects with backoff until it works, fails for good, or runs out.
    private func supervise(_ first: any BridgeConnection) async {
        var current = first
        while true {
            let (code, reason, violation) = await pump(current)
            if isFinished { return }
            connection = nil
            if let violation {
                // A bridge that sends bad frames is not tried again by this client; the caller decides.
                current.close()
                return fail(violation)
            }
            if code == Int(BridgeCloseCode.policyViolation) {
                return fail(.closedByPolicy(reason))
            }
            guard configuration.reconnects else {
                return fail(.connectionFailed("the connection to the bridge ended (\(reason ?? "no reason"))"))
            }
            state = .reconnecting
            var backoff = configuration.backoff
            var last = reason ?? code.map { "close code \($0)" } ?? "connection lost"
            while true {
                guard let delay = backoff.next() else {
                    return fail(.reconnectFailed(attempts: backoff.attempt, last: last))
                }
                statusInput.yield(.reconnecting(attempt: backoff.attempt, delay: delay, reason: last))
                try? await Task.sleep(for: delay)
                if isFinished { return }
                do {
                    let (connection, ack, endpoint) = try await openAny()
                    if isFinished {
                        connection.close()
                        return
                    }
                    adopt(connection, ack: ack, endpoint: endpoint)
                    current = connection
                    break
                } catch  where !error.isRetryable {
                    return fail(error)
                } catch {
                    last = error.message
                }
            }
        }
    }

    /// Handles frames until the connection ends, or until a frame breaks the protocol; returns the close code
    /// and reason, or the violation.
    private func pump(_ connection: any BridgeConnection) async -> (Int?, String?, BridgeClientError?) {
        for await event in connection.incoming {
            switch event {
            case .text(let text):
                let bytes = text.utf8.count
                do {
                    // A relayed frame's bytes stay in the window until the relay is done with it.
                    if try !receive(text, bytes: bytes, on: connection) { connection.consumed(bytes: bytes) }
                } catch {
                    logger.warning("The bridge sent a bad frame; closing the connection", metadata: ["bridge.error": "\(error)"])
                    return (nil, nil, error)
                }
            case .violation(let why): return (nil, nil, .protocolViolation(why))
            case .closed(let code, let reason): return (code, reason, nil)
            }
        }
        return (nil, nil, nil)
    }

    /// Handles one frame; true when it went to ``relayed`` (its bytes are then the relay's to give back).
    private func receive(_ text: String, bytes: Int, on connection: any BridgeConnection) throws(BridgeClientError) -> Bool {
        if configuration.relaysFrames, var frame = RelayedFrame.scanEvent(text) {
            frame.receivedBytes = bytes
            return journaled(frame, on: connection)
        }
        guard let message = try ServerFrameRules.decode(text) else {
            logger.debug("ignoring a frame of a kind the client does not know")
            return false
        }
        switch message {
        case .response(let id, let response):
            guard let waiting = pending.removeValue(forKey: id) else { return false }
            track(waiting.request, response)
            waiting.continuation?.resume(returning: response)
        case .error(let error):
            guard let id = error.id, let waiting = pending.removeValue(forKey: id) else {
                logger.debug("bridge error", metadata: ["bridge.error.code": "\(error.code)", "bridge.error": "\(error.message)"])
                return false
            }
            waiting.continuation?.resume(
                throwing: BridgeRequestError(code: error.code, message: error.message, requestId: id, scope: error.scope))
        case .event, .approvalRequest, .approvalResolved, .inputRequest, .inputResolved, .messageQueued, .messageUnqueued, .queueChanged,
            .commandStarted, .commandOutput, .commandExited:
            return journaled(RelayedFrame(message: message, receivedBytes: bytes), on: connection)
        case .scopesChanged(let changed):
            scopes = changed.scopes
        case .helloAck, .pong, .pairingPending, .machineChanged, .scopeRequestEnded:
            break
        }
        return false
    }

    /// A journaled message: passed on once (a seq at or below the cursor is a repeat), acknowledged every
    /// ``BridgeClientConfiguration/ackEvery``. True when it went to ``relayed``.
    private func journaled(_ frame: RelayedFrame, on connection: any BridgeConnection) -> Bool {
        guard let seq = frame.message.seq, seqs.accept(seq) else { return false }
        let relays = configuration.relaysFrames
        if relays {
            relayHeld += frame.receivedBytes
            relayInput.yield(frame)
        } else {
            eventInput.yield(frame.message)
        }
        unacked += 1
        if unacked >= configuration.ackEvery {
            unacked = 0
            write(.ack(Ack(seq: seq)), on: connection)
        }
        return relays
    }

    /// Remembers subscriptions so a reconnect can restore the ones the bridge does not.
    private func track(_ request: BridgeRequest, _ response: BridgeResponse) {
        switch (request.requestKind, response) {
        case (.subscribe, .subscribed(let changed)): subscriptions.insert(changed.threadId)
        case (.unsubscribe, _): if let threadId = request.threadId { subscriptions.remove(threadId) }
        case (.startThread, .threadStarted(let started)): subscriptions.insert(started.threadId)
        case (.forkThread, .threadForked(let forked)): subscriptions.insert(forked.threadId)
        default: break
        }
    }

    private func transmit(id: String, request: BridgeRequest, on connection: any BridgeConnection) {
        write(.request(id: id, request), on: connection)
    }

    private func write(_ message: ClientMessage, on connection: any BridgeConnection) {
        do {
            connection.send(String(decoding: try message.encoded(), as: UTF8.self))
        } catch {
            logger.error("could not encode a request", metadata: ["bridge.error": "\(error)"])
        }
    }

    private func fail(_ error: BridgeClientError) {
        guard !isFinished else { return }
        logger.error("bridge client stopped", metadata: ["bridge.error": "\(error)"])
        state = .failed(error)
        connection?.close()
        connection = nil
        finish(with: error, status: .failed(error))
    }

    private func finish(with error: BridgeClientError, status: Status) {
        let waiting = pending
        pending.removeAll()
        for (_, entry) in waiting { entry.continuation?.resume(throwing: error) }
        statusInput.yield(status)
        statusInput.finish()
        eventInput.finish()
        relayInput.finish()
    }
}
