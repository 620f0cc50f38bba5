import NIOCore
import NIOWebSocket

/// A server's WebSocket frame as bytes (RFC 6455 §5.2): final, unmasked, header and payload in one buffer.
///
/// The connection writes these itself instead of going through NIO's `WebSocketFrameEncoder`, which writes the
/// header as a buffer of its own whenever the payload's storage is shared (as it always is by then): two
/// buffers per frame, and on a flood of small events a third of the cost of writing them.
enum ServerFrame {
    static func text(_ text: String, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: text.utf8.count + maxHeaderBytes)
        append(text: text, to: &buffer)
        return buffer
    }

    /// The most bytes a header takes (a 64-bit length, no mask).
    static let maxHeaderBytes = 10

    /// Writes a text frame at the end of `buffer` (the frames of a drain go out in one buffer).
    static func append(text: String, to buffer: inout ByteBuffer) {
        writeHeader(opcode: .text, length: text.utf8.count, into: &buffer)
        buffer.writeString(text)
    }

    static func frame(_ opcode: WebSocketOpcode, payload: ByteBuffer, allocator: ByteBufferAllocator) -> ByteBuffer {
        var payload = payload
        var buffer = allocator.buffer(capacity: payload.readableBytes + 10)
        writeHeader(opcode: opcode, length: payload.readableBytes, into: &buffer)
        buffer.writeBuffer(&payload)
        return buffer
    }

    private static func writeHeader(opcode: WebSocketOpcode, length: Int, into buffer: inout ByteBuffer) {
        buffer.writeInteger(0x80 | UInt8(webSocketOpcode: opcode))  // FIN
        if length < 126 {
            buffer.writeInteger(UInt8(length))
        } else if length <= Int(UInt16.max) {
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(length))
        } else {
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(length))
        }
    }
}

/// Where a connection's frames enter the pipeline: just below NIO's frame encoder (which stays in the pipeline,
/// as NIO's upgrader cannot take it out, but sees nothing), so that the bytes ``ServerFrame`` makes go straight
/// on to TLS or the socket.
final class FrameBytesWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func write(_ bytes: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.write(wrapOutboundOut(bytes), promise: promise)
    }

    func flush() {
        context?.flush()
    }
}
