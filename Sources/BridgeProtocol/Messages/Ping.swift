/// An application-level ping; the server answers with a ``Pong`` carrying the same nonce.
public struct Ping: Codable, Sendable, Hashable {
    public var nonce: String
    public init(nonce: String) { self.nonce = nonce }
}

/// The answer to a ``Ping``.
public struct Pong: Codable, Sendable, Hashable {
    public var nonce: String
    public init(nonce: String) { self.nonce = nonce }
}

/// Tells the server how far this device has read the event stream.
public struct Ack: Codable, Sendable, Hashable {
    public var seq: Int64
    public init(seq: Int64) { self.seq = seq }
}
