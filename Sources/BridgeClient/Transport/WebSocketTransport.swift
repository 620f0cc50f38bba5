import Logging
import NIOCore
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization
import WSClient

/// The real transport: swift-websocket's `WebSocketClient` over NIO, TLS through NIOSSL.
///
/// With a pin, the server's certificate is first fetched and checked by ``PinnedCertificateFetcher``; the
/// WebSocket connection then trusts that one certificate and nothing else (no CA, no host name check), so a
/// server without the pinned certificate's private key cannot complete the handshake.
public struct WebSocketTransport: BridgeTransport {
    /// The largest frame and message accepted from the server (a `readThread` answer can be large).
    public var maxMessageBytes: Int
    /// With a value: each connection reads no further message while this many bytes of received text wait for
    /// the client (``InboundWindow``); nil: it reads as fast as the server sends.
    public var inboundWindowBytes: Int?
    private let certificates: PinnedCertificateFetcher

    public init(maxMessageBytes: Int = 64 << 20, inboundWindowBytes: Int? = nil) {
        self.maxMessageBytes = maxMessageBytes
        self.inboundWindowBytes = inboundWindowBytes
        self.certificates = PinnedCertificateFetcher()
    }

    public func connect(to endpoint: BridgeEndpoint, pin: CertificatePin?, logger: Logger) async throws -> any BridgeConnection {
        var configuration = WebSocketClientConfiguration(maxFrameSize: maxMessageBytes)
        var tls: TLSConfiguration?
        if endpoint.isTLS {
            var settings = TLSConfiguration.makeClientConfiguration()
            if let pin {
                let certificate = try await certificates.certificate(for: endpoint, pin: pin)
                settings.trustRoots = .certificates([certificate])
                settings.certificateVerification = .noHostnameVerification
            }
            tls = settings
            // NIOSSL refuses an IP literal as SNI; with a pin the name is not checked, so any valid one does.
            if endpoint.hostIsIPAddress { configuration.sniHostname = "codex-bridge" }
        }
        return try await WebSocketConnection.open(
            url: endpoint.url, configuration: configuration, tls: tls, maxMessageBytes: maxMessageBytes,
            window: inboundWindowBytes.map(InboundWindow.init(limit:)), logger: logger)
    }
}

/// A `WebSocketClient` run in a task, turned into a stream in and a queue out.
final class WebSocketConnection: BridgeConnection {
    let incoming: AsyncStream<TransportEvent>
    let window: InboundWindow?
    private let outgoing: AsyncStream<String>.Continuation
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    private init(incoming: AsyncStream<TransportEvent>, outgoing: AsyncStream<String>.Continuation, window: InboundWindow?) {
        self.incoming = incoming
        self.outgoing = outgoing
        self.window = window
    }

    func send(_ text: String) { outgoing.yield(text) }

    func close() {
        outgoing.finish()
        window?.close()
    }

    func consumed(bytes: Int) { window?.release(bytes) }

    deinit {
        outgoing.finish()
        window?.close()
    }

    /// Connects; returns once the upgrade succeeded, throws if it did not.
    static func open(
        url: String, configuration: WebSocketClientConfiguration, tls: TLSConfiguration?, maxMessageBytes: Int,
        window: InboundWindow?, logger: Logger
    ) async throws -> WebSocketConnection {
        let (incoming, input) = AsyncStream.makeStream(of: TransportEvent.self)
        let (outgoing, output) = AsyncStream.makeStream(of: String.self)
        let connection = WebSocketConnection(incoming: incoming, outgoing: output, window: window)
        let opened = OpenSignal()
        // Why the reader stopped, when the server broke a rule (WSClient closes such a connection without saying).
        let broken = BrokenRule()
        let task = Task {
            do {
                let closeFrame = try await WebSocketClient.connect(
                    url: url, configuration: configuration, tlsConfiguration: tls, logger: logger
                ) { inbound, outbound, _ in
                    opened.succeed()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            do {
                                for try await message in inbound.messages(maxSize: maxMessageBytes) {
                                    guard case .text(let text) = message else { continue }
                                    // While the window is full the next message is not read: TCP holds the server back.
                                    await window?.acquire(text.utf8.count)
                                    input.yield(.text(text))
                                }
                            } catch {
                                if Self.isTooLarge(error) { broken.set("a message over \(maxMessageBytes) bytes") }
                                throw error
                            }
                        }
                        group.addTask {
                            for await text in outgoing {
                                try await outbound.write(.text(text))
                            }
                            if !Task.isCancelled { try? await outbound.close(.normalClosure, reason: nil) }
                            // Wait for the server's close (the reader ends) rather than dropping the socket.
                            try? await Task.sleep(for: .seconds(5))
                        }
                        _ = try await group.next()
                        group.cancelAll()
                    }
                }
                opened.fail(BridgeClientError.connectionFailed("\(url): the server closed the connection during the upgrade"))
                if let why = broken.value {
                    input.yield(.violation(why))
                } else {
                    input.yield(.closed(code: closeFrame.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }, reason: closeFrame?.reason))
                }
            } catch {
                opened.fail(error)
                input.yield(broken.value.map(TransportEvent.violation) ?? .closed(code: nil, reason: "\(error)"))
            }
            window?.close()
            input.finish()
        }
        connection.task.withLock { $0 = task }
        try await withTaskCancellationHandler {
            try await opened.wait()
        } onCancel: {
            task.cancel()
        }
        return connection
    }
}

extension WebSocketConnection {
    /// A frame over NIO's limit (`invalidFrameLength`), or a message over `maxSize` (WSClient's `messageTooLarge`).
    static func isTooLarge(_ error: any Error) -> Bool {
        if let error = error as? NIOWebSocketError, error == .invalidFrameLength { return true }
        return "\(error)".contains("messageTooLarge")
    }
}

/// The rule the server broke, once it broke one.
private final class BrokenRule: Sendable {
    private let rule = Mutex<String?>(nil)
    var value: String? { rule.withLock { $0 } }
    func set(_ why: String) { rule.withLock { $0 = $0 ?? why } }
}

/// Completes once: the upgrade succeeded, or the connection failed first.
private final class OpenSignal: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Void, any Error>?)
        case done(Result<Void, any Error>)
    }
    private let state = Mutex<State>(.waiting(nil))

    func succeed() { complete(.success(())) }
    func fail(_ error: any Error) { complete(.failure(error)) }

    private func complete(_ result: Result<Void, any Error>) {
        let waiter: CheckedContinuation<Void, any Error>? = state.withLock { state in
            guard case .waiting(let waiter) = state else { return nil }
            state = .done(result)
            return waiter
        }
        waiter?.resume(with: result)
    }

    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let result: Result<Void, any Error>? = state.withLock { state in
                switch state {
                case .waiting:
                    state = .waiting(continuation)
                    return nil
                case .done(let result):
                    return result
                }
            }
            if let result { continuation.resume(with: result) }
        }
    }
}
