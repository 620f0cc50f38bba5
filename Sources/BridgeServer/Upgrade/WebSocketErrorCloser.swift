import NIOCore
import NIOWebSocket

/// Answers a WebSocket protocol error (a frame over the size limit, a fragmented control frame, a frame the
/// client did not mask) with its close code, then lets the peer read it.
///
/// NIO's own error handler closes the socket right after writing the close frame. When the peer is still
/// sending (the rest of an oversized frame), the kernel then resets the connection and the close frame is
/// lost. This handler instead half-closes the output after the close frame, discards whatever still
/// arrives, and closes once the peer has closed its side or `linger` has passed. The error is not passed on:
/// the connection ends when the channel closes.
final class WebSocketErrorCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let linger: TimeAmount
    private var failed = false

    init(linger: TimeAmount) {
        self.linger = linger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        // RFC 6455 §5.1: a server must close the connection on a frame from the client that is not masked.
        guard unwrapInboundIn(data).maskKey != nil else {
            fail(context: context, code: .protocolError)
            return
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // After the first protocol error the decoder reports every further byte as an error: drop them.
        guard !failed else { return }
        guard let protocolError = error as? NIOWebSocketError else {
            context.fireErrorCaught(error)
            return
        }
        fail(context: context, code: Self.closeCode(for: protocolError))
    }

    private func fail(context: ChannelHandlerContext, code: WebSocketErrorCode) {
        failed = true
        var data = context.channel.allocator.buffer(capacity: 2)
        data.write(webSocketErrorCode: code)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)), promise: nil)
        context.close(mode: .output, promise: nil)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: linger) { channel.close(promise: nil) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if failed, case .some(.inputClosed) = event as? ChannelEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The close code for a decoder error (as NIO's own handler answers it).
    static func closeCode(for error: NIOWebSocketError) -> WebSocketErrorCode {
        switch error {
        case .invalidFrameLength: .messageTooLarge
        case .fragmentedControlFrame, .multiByteControlFrameLength: .protocolError
        }
    }
}
