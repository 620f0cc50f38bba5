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

    /// Where the connection is in its life.
    enum State: Equatable {
        /// Messages flow; `unansweredPings` pings of ours wait for a pong.
        case open(unansweredPings: Int)
        /// Our close is queued, not written yet; the peer has not closed.
        case closing
        /// Our close is written; the peer's is awaited.
        case closeSent
        /// The peer's close arrived; our answer (or our own earlier close) is queued, or written.
        case peerClosed(answerWritten: Bool)
        /// A protocol error was answered: nothing more is read. Whether our close is written, and whether the
        /// peer had closed.
        case failed(closeWritten: Bool, peerClosed: Bool)
    }

    private(set) var state = State.open(unansweredPings: 0)
    private var pingsSent: UInt64 = 0

    init(allowedMissedPings: Int = 2, protocolErrorLinger: TimeAmount = .seconds(2)) {
        self.allowedMissedPings = allowedMissedPings
        self.protocolErrorLinger = protocolErrorLinger
    }

    /// Whether the peer's frames are read at all.
    var isReading: Bool {
        if case .failed = state { return false }
        return true
    }

    /// Whether a message or a ping from the peer still gets an answer.
    var acceptsMessages: Bool {
        switch state {
        case .open, .closing: true
        case .closeSent, .peerClosed, .failed: false
        }
    }

    /// Whether our close frame is written.
    var closeSent: Bool {
        switch state {
        case .closeSent, .peerClosed(answerWritten: true), .failed(closeWritten: true, _): true
        case .open, .closing, .peerClosed(answerWritten: false), .failed(closeWritten: false, _): false
        }
    }

    private var peerClosed: Bool {
        switch state {
        case .peerClosed, .failed(_, peerClosed: true): true
        case .open, .closing, .closeSent, .failed(_, peerClosed: false): false
        }
    }

    /// The server queued a close of its own (shutdown, revocation, a bad hello, a client that does not read).
    mutating func closeQueued() {
        if case .open = state { state = .closing }
    }

    /// The peer's close frame: answered with its code (or 1002/1007 for a malformed one) and the socket closed
    /// once the answer is written; when our own close was already written, the handshake is complete.
    mutating func receivedClose(payload: ByteBuffer) -> Action {
        switch state {
        case .peerClosed, .failed:
            return .none
        case .closeSent:
            state = .peerClosed(answerWritten: true)
            return .closeSocket
        case .open, .closing:
            state = .peerClosed(answerWritten: false)
            switch PeerClose(payload: payload) {
            case .answer(let code), .violation(let code): return .close(CloseRequest(code: code, ending: .now))
            }
        }
    }

    /// A frame broke the protocol: answer with `code`, shut our side, read nothing more.
    mutating func protocolError(_ code: WebSocketErrorCode) -> Action {
        if case .failed = state { return .none }
        let written = closeSent
        state = .failed(closeWritten: written, peerClosed: peerClosed)
        if written { return .closeSocket }
        return .close(CloseRequest(code: UInt16(webSocketErrorCode: code), ending: .halfClose(linger: protocolErrorLinger)))
    }

    mutating func receivedPong() {
        if case .open = state { state = .open(unansweredPings: 0) }
    }

    /// The heartbeat interval passed: ping, or close a peer that left `allowedMissedPings` unanswered.
    mutating func heartbeat() -> Action {
        guard case .open(let unanswered) = state else { return .none }
        if unanswered >= allowedMissedPings {
            state = .closing
            return .close(CloseRequest(code: UInt16(webSocketErrorCode: .goingAway), reason: "Ping timeout", ending: .now))
        }
        pingsSent += 1
        state = .open(unansweredPings: unanswered + 1)
        return .ping(pingsSent)
    }

    /// Our close frame is written. True when the peer's close already came: the socket closes now, whatever
    /// the close's own ending says.
    mutating func closeWritten() -> Bool {
        switch state {
        case .open, .closing, .closeSent:
            state = .closeSent
            return false
        case .peerClosed:
            state = .peerClosed(answerWritten: true)
            return true
        case .failed(_, let peerClosed):
            state = .failed(closeWritten: true, peerClosed: peerClosed)
            return peerClosed
        }
    }
}
