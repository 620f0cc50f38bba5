import NIOCore
import NIOWebSocket

/// Checks each frame as it comes off NIO's decoder, before the fragments of a message are joined (the
/// aggregator drops what is checked here): a client frame must be masked (RFC 6455 §5.1), use no reserved
/// bit (no extension is negotiated, §5.2) and no reserved opcode (§5.2). A frame that breaks a rule is dropped
/// and reported as an error; the ``ConnectionHandler`` answers it with close 1002, so the connection keeps a
/// single writer.
final class InboundFrameCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    struct Violation: Error, Equatable {
        var rule: String
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if let rule = Self.violation(frame) {
            context.fireErrorCaught(Violation(rule: rule))
            return
        }
        context.fireChannelRead(data)
    }

    /// The rule `frame` breaks, if any.
    static func violation(_ frame: WebSocketFrame) -> String? {
        if frame.maskKey == nil { return "unmasked client frame" }
        if frame.rsv1 || frame.rsv2 || frame.rsv3 { return "reserved bit set" }
        switch frame.opcode {
        case .continuation, .text, .binary, .connectionClose, .ping, .pong: return nil
        default: return "reserved opcode"
        }
    }
}
