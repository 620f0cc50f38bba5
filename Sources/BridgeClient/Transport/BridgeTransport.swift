import Logging

/// What a connection reports: a text frame, or its end.
public enum TransportEvent: Sendable, Hashable {
    /// One text message.
    case text(String)
    /// The connection ended: the server's close code and reason when it sent a close frame.
    case closed(code: Int?, reason: String?)
    /// The transport closed the connection because the server broke the WebSocket rules the client holds it to
    /// (a message over the size limit); nothing follows.
    case violation(String)
}

/// One open WebSocket connection, as ``BridgeClient`` uses it.
public protocol BridgeConnection: Sendable {
    /// Every text message received, then one ``TransportEvent/closed(code:reason:)``; consumed by one reader.
    var incoming: AsyncStream<TransportEvent> { get }
    /// Queues a text message.
    func send(_ text: String)
    /// Closes the connection (a normal close); `incoming` then ends.
    func close()
    /// The reader finished with `bytes` bytes of received text (see ``InboundWindow``).
    func consumed(bytes: Int)
    /// The connection's inbound window, when it has one.
    var window: InboundWindow? { get }
}

extension BridgeConnection {
    /// Without a window there is nothing to give back.
    public func consumed(bytes: Int) {}
    public var window: InboundWindow? { nil }
}

/// Opens connections. ``WebSocketTransport`` is the real one; tests substitute a fake.
public protocol BridgeTransport: Sendable {
    /// Connects and completes the WebSocket upgrade (not the bridge's `hello`).
    /// - Throws: ``BridgeClientError`` `pinMismatch` when `pin` is given and the certificate differs;
    ///   anything else when the address cannot be reached.
    func connect(to endpoint: BridgeEndpoint, pin: CertificatePin?, logger: Logger) async throws -> any BridgeConnection
}
