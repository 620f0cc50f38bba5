import BridgeLive
import BridgeProtocol
import Foundation
import Logging
import Synchronization

/// What the request layer (thread hub) sees of one authenticated connection.
public final class ClientSession: Sendable, Hashable, Identifiable {
    /// Unique for the life of the process.
    public let id: UInt64
    /// Who the connection is authenticated as.
    public let principal: Principal
    /// The hello that opened the session (resume cursor, device info).
    public let hello: Hello
    /// The remote address, for logs and `devices list`.
    public let remoteAddress: String
    /// Logger with this connection's metadata.
    public let logger: Logger

    /// Where its frames go (the connection's outbox).
    package let sink: any SessionSink
    /// Its live channel (binary frames for live-only streams such as the voice's audio); nil for a session
    /// without a socket of its own.
    public let live: LiveChannel?
    private let onOverflow: @Sendable () -> Void
    private let grantedScopes: Mutex<Scopes>

    /// - Parameter scopes: what the connection may do; nil: every scope for the shared secret, the standard
    ///   ones for a device.
    package init(
        id: UInt64, principal: Principal, hello: Hello, remoteAddress: String, logger: Logger, sink: any SessionSink, scopes: Scopes? = nil,
        live: LiveChannel? = nil, onOverflow: @escaping @Sendable () -> Void
    ) {
        self.live = live
        self.grantedScopes = Mutex(scopes ?? (principal == .sharedSecret ? .all : .standard))
        self.id = id
        self.principal = principal
        self.hello = hello
        self.remoteAddress = remoteAddress
        self.logger = logger
        self.sink = sink
        self.onOverflow = onOverflow
    }

    /// What this connection may do now (a device's scopes may change while it is connected).
    public var scopes: Scopes { grantedScopes.withLock { $0 } }

    /// Gives the connection new scopes; true when they differ from the old ones.
    @discardableResult
    package func updateScopes(_ scopes: Scopes) -> Bool {
        grantedScopes.withLock { current in
            defer { current = scopes }
            return current != scopes
        }
    }

    /// Queues one message. Returns false when the connection is closing or its queue overflowed (the
    /// connection is then closed with 1013; the client resumes from the journal).
    @discardableResult
    public func send(_ message: ServerMessage) -> Bool {
        guard let text = try? message.encodedText() else { return false }
        return sendEncoded(text)
    }

    /// Queues an already encoded frame (fan-out encodes once for every subscriber).
    @discardableResult
    public func sendEncoded(_ text: String) -> Bool {
        sendEncoded(contentsOf: [text])
    }

    /// Queues already encoded frames in order, with one lock and at most one wake (a batch of the fan-out).
    @discardableResult
    public func sendEncoded(contentsOf texts: [String]) -> Bool {
        switch sink.enqueue(contentsOf: texts) {
        case .enqueued: return true
        case .closed: return false
        case .overflow:
            onOverflow()
            return false
        }
    }

    /// Closes the connection as a reader too slow to keep up (1013), as a full queue does; the client resumes
    /// from the journal when it returns.
    public func closeAsSlowReader() {
        onOverflow()
    }

    /// Waits until at most `frames` frames wait to be written (at once when the connection is gone).
    public func waitUntilQueued(atMost frames: Int) async {
        await sink.waitUntilQueued(atMost: frames)
    }

    public static func == (lhs: ClientSession, rhs: ClientSession) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
