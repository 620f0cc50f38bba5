import BridgeHub
import NIOCore
import NIOWebSocket

/// The WebSocket's own rules on one connection, without sockets (RFC 6455 §5.5, §7): which of the peer's frames
/// still count, the close handshake from either side, protocol errors, and the server's pings. Like
/// ``ConnectionStateMachine`` (the bridge protocol above it), every input returns what the connection must do.
struct WebSocketLifecycle {
    enum Action: Equatable {
        case none
        /// Drop whatever waits in the outbox and send this close.
        case close(CloseRequest)
        /// Close the socket now.
        case closeSocket
        /// Send a ping carrying this counter.
        case ping(UInt64)
    }

    /// Pings a peer may leave unanswered before it is closed (each gets a whole interval).
    let allowedMissedPings: Int
    /// How long a connection closed for a protocol error waits for the peer to stop sending.
    let protocolErrorLinger: TimeAmount

    /// A close of ours is queued or written.
    private(set) var closing = false
    /// Our close frame is written.
    private(set) var closeSent = false
    /// The peer's close frame arrived.
    private(set) var peerClosed = false
    /// A protocol error was answered: nothing more from the peer is read.
    private(set) var failed = false
    private var unansweredPings = 0
    private var pingsSent: UInt64 = 0

    init(allowedMissedPings: Int = 2, protocolErrorLinger: TimeAmount = .seconds(2)) {
        self.allowedMissedPings = allowedMissedPings
        self.protocolErrorLinger = protocolErrorLinger
    }

    /// Whether the peer's frames are read at all.
    var isReading: Bool { !failed }
    /// Whether a message or a ping from the peer still gets an answer.
    var acceptsMessages: Bool { !failed && !closeSent && !peerClosed }

    /// The server queued a close of its own (shutdown, revocation, a bad hello, a client that does not read).
    mutating func closeQueued() {
        closing = true
    }

    /// The peer's close frame: answered with its code (or 1002/1007 for a malformed one) and the socket closed
    /// once the answer is written; when our own close was already written, the handshake is complete.
    mutating func receivedClose(payload: ByteBuffer) -> Action {
        guard !failed, !peerClosed else { return .none }
        peerClosed = true
        if closeSent { return .closeSocket }
        closing = true
        switch PeerClose(payload: payload) {
        case .answer(let code), .violation(let code): return .close(CloseRequest(code: code, ending: .now))
        }
    }

    /// A frame broke the protocol: answer with `code`, shut our side, read nothing more.
    mutating func protocolError(_ code: WebSocketErrorCode) -> Action {
        guard !failed else { return .none }
        failed = true
        if closeSent { return .closeSocket }
        closing = true
        return .close(CloseRequest(code: UInt16(webSocketErrorCode: code), ending: .halfClose(linger: protocolErrorLinger)))
    }

    mutating func receivedPong() {
        unansweredPings = 0
    }

    /// The heartbeat interval passed: ping, or close a peer that left `allowedMissedPings` unanswered.
    mutating func heartbeat() -> Action {
        guard !closing, !failed, !peerClosed else { return .none }
        if unansweredPings >= allowedMissedPings {
            closing = true
            return .close(CloseRequest(code: UInt16(webSocketErrorCode: .goingAway), reason: "Ping timeout", ending: .now))
        }
        pingsSent += 1
        unansweredPings += 1
        return .ping(pingsSent)
    }

    /// Our close frame is written. True when the peer's close already came: the socket closes now, whatever
    /// the close's own ending says.
    mutating func closeWritten() -> Bool {
        closeSent = true
        closing = true
        return peerClosed
    }
}
