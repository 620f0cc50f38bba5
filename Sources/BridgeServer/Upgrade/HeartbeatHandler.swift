import NIOCore
import NIOWebSocket

/// Sends a WebSocket ping every `interval` and closes a peer that misses `allowedMisses` in a row (each ping
/// gets a whole interval for its pong): with the default of 2, a silent peer is closed about three intervals
/// after its last pong, with 1001 "Ping timeout".
///
/// It sits after NIO's frame decoder and passes every frame on (WSCore still answers the peer's pings and
/// ignores pongs it did not ask for). Runs entirely on the channel's event loop; no task per connection.
final class HeartbeatHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let interval: TimeAmount
    private let allowedMisses: Int
    private var unanswered = 0
    private var counter: UInt64 = 0
    private var timer: RepeatedTask?

    init(interval: TimeAmount, allowedMisses: Int = 2) {
        self.interval = interval
        self.allowedMisses = allowedMisses
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            bound.value.handler.tick(context: bound.value.context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if unwrapInboundIn(data).opcode == .pong { unanswered = 0 }
        context.fireChannelRead(data)
    }

    private func tick(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        if unanswered >= allowedMisses {
            timer?.cancel()
            timer = nil
            var data = context.channel.allocator.buffer(capacity: 16)
            data.write(webSocketErrorCode: .goingAway)
            data.writeString("Ping timeout")
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)), promise: nil)
            context.close(promise: nil)
            return
        }
        counter += 1
        var payload = context.channel.allocator.buffer(capacity: 8)
        payload.writeInteger(counter)
        unanswered += 1
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: payload)), promise: nil)
    }
}
