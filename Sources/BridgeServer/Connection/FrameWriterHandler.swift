import NIOCore
import NIOWebSocket

/// Writes a connection's ``Outbox`` on its event loop: as many text frames per flush as the socket takes.
///
/// It sits below NIO's WebSocket frame encoder (next to the socket, or to TLS) and passes everything else
/// through untouched: WSCore still reads, answers the peer's pings and does the close handshake, and the
/// ``HeartbeatHandler`` sends the server's pings. Going
/// around WSCore's writer for data frames saves a task wake-up, an event-loop hop and a flush per frame, and
/// each frame is encoded straight into one buffer (a server frame is not masked): a drain writes a whole
/// fan-out or replay page in one `writev`. While the channel is not writable the drain stops and frames wait in
/// the bounded outbox; it resumes when the channel is writable again.
final class FrameWriterHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Frames taken from the outbox between two writability checks.
    static let chunk = 64

    private var context: ChannelHandlerContext?
    private var outbox: Outbox?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        self.outbox = nil
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        context.fireChannelWritabilityChanged()
        if context.channel.isWritable { drain() }
    }

    /// Connects `outbox` to this channel's writer: from then on a frame queued into the idle outbox schedules
    /// a drain on the event loop. Call on the channel's event loop.
    static func attach(_ outbox: Outbox, to channel: any Channel) throws {
        let loop = channel.eventLoop
        loop.preconditionInEventLoop()
        let writer = try channel.pipeline.syncOperations.handler(type: FrameWriterHandler.self)
        writer.outbox = outbox
        let bound = NIOLoopBound(writer, eventLoop: loop)
        outbox.attach(wake: { loop.execute { bound.value.drain() } })
    }

    /// Writes queued frames until the outbox is empty, a close is reached, or the channel is not writable.
    func drain() {
        guard let context, let outbox else { return }
        var wrote = false
        var closeReached = false
        while context.channel.isWritable {
            let batch = outbox.take(limit: Self.chunk)
            for text in batch.frames {
                context.write(wrapOutboundOut(Self.textFrame(text, allocator: context.channel.allocator)), promise: nil)
            }
            wrote = wrote || !batch.frames.isEmpty
            if batch.close != nil { closeReached = true }
            if closeReached || batch.frames.count < Self.chunk { break }
        }
        if wrote { context.flush() }
        if closeReached { outbox.closeWritten() }
    }

    /// One unmasked, final text frame (RFC 6455 5.2): header and payload in one buffer.
    static func textFrame(_ text: String, allocator: ByteBufferAllocator) -> ByteBuffer {
        let count = text.utf8.count
        var buffer = allocator.buffer(capacity: count + 10)
        buffer.writeInteger(UInt8(0x81))  // FIN, opcode 1 (text)
        if count < 126 {
            buffer.writeInteger(UInt8(count))
        } else if count <= Int(UInt16.max) {
            buffer.writeInteger(UInt8(126))
            buffer.writeInteger(UInt16(count))
        } else {
            buffer.writeInteger(UInt8(127))
            buffer.writeInteger(UInt64(count))
        }
        buffer.writeString(text)
        return buffer
    }
}
