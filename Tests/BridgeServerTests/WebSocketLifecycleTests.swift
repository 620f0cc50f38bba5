import BridgeHub
import NIOCore
import NIOWebSocket
import Testing

@testable import BridgeServer

/// The WebSocket's rules without a channel: every input and the action it returns.
@Suite struct WebSocketLifecycleTests {
    static func closePayload(_ code: UInt16, _ reason: String = "") -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(code)
        buffer.writeString(reason)
        return buffer
    }

    @Test func thePeersCloseIsAnsweredWithItsCodeThenNothingCounts() {
        var socket = WebSocketLifecycle()
        #expect(socket.acceptsMessages)
        let step1 = socket.receivedClose(payload: Self.closePayload(4000, "bye"))
        #expect(step1 == .close(CloseRequest(code: 4000, ending: .now)))
        #expect(!socket.acceptsMessages)
        let step2 = socket.receivedClose(payload: Self.closePayload(1000))
        #expect(step2 == .none)  // a second close is ignored
        let step3 = socket.heartbeat()
        #expect(step3 == .none)
        let step4 = socket.closeWritten()
        #expect(step4)  // the peer already closed: the socket closes now
    }

    @Test func ourCloseThenThePeersCompletesTheHandshake() {
        var socket = WebSocketLifecycle()
        socket.closeQueued()
        let step5 = socket.heartbeat()
        #expect(step5 == .none)  // no pings once closing
        let step6 = socket.closeWritten()
        #expect(!step6)  // wait for the peer
        #expect(!socket.acceptsMessages)
        let step7 = socket.receivedClose(payload: Self.closePayload(1000))
        #expect(step7 == .closeSocket)
    }

    @Test func aMalformedCloseIsAProtocolErrorAnswer() {
        var socket = WebSocketLifecycle()
        let step8 = socket.receivedClose(payload: Self.closePayload(1005))
        #expect(step8 == .close(CloseRequest(code: 1002, ending: .now)))
    }

    @Test func aProtocolErrorClosesOnceAndStopsReading() {
        var socket = WebSocketLifecycle(protocolErrorLinger: .seconds(2))
        let step9 = socket.protocolError(.messageTooLarge)
        #expect(step9 == .close(CloseRequest(code: 1009, ending: .halfClose(linger: .seconds(2)))))
        #expect(!socket.isReading)
        let step10 = socket.protocolError(.protocolError)
        #expect(step10 == .none)
        let step11 = socket.receivedClose(payload: Self.closePayload(1000))
        #expect(step11 == .none)
        var closed = WebSocketLifecycle()
        _ = closed.closeWritten()
        let step12 = closed.protocolError(.protocolError)
        #expect(step12 == .closeSocket)  // our close is out: nothing more to say
    }

    @Test func aPeerThatMissesTwoPingsIsClosed() {
        var socket = WebSocketLifecycle(allowedMissedPings: 2)
        let step13 = socket.heartbeat()
        #expect(step13 == .ping(1))
        socket.receivedPong()
        let step14 = socket.heartbeat()
        #expect(step14 == .ping(2))
        let step15 = socket.heartbeat()
        #expect(step15 == .ping(3))
        let step16 = socket.heartbeat()
        #expect(step16 == .close(CloseRequest(code: 1001, reason: "Ping timeout", ending: .now)))
        let step17 = socket.heartbeat()
        #expect(step17 == .none)
    }

    /// The states one by one, as an enum: a protocol error after the peer's close still closes the socket once
    /// our close is written, and nothing is read after it.
    @Test func aProtocolErrorAfterThePeersCloseEndsOnceTheCloseIsWritten() {
        var socket = WebSocketLifecycle()
        #expect(socket.state == .open(unansweredPings: 0))
        _ = socket.heartbeat()
        #expect(socket.state == .open(unansweredPings: 1))
        socket.receivedPong()
        #expect(socket.state == .open(unansweredPings: 0))
        _ = socket.receivedClose(payload: Self.closePayload(1000))
        #expect(socket.state == .peerClosed(answerWritten: false) && !socket.closeSent)
        let failed = socket.protocolError(.protocolError)
        #expect(failed == .close(CloseRequest(code: 1002, ending: .halfClose(linger: .seconds(2)))))
        #expect(socket.state == .failed(closeWritten: false, peerClosed: true) && !socket.isReading)
        #expect(socket.protocolError(.protocolError) == .none)
        let closeNow = socket.closeWritten()
        #expect(closeNow && socket.closeSent)
    }
}
