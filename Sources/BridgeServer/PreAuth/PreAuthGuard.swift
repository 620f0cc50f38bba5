import NIOCore

/// The first handler of every connection (after TLS, when TLS is on), on the raw bytes:
/// - counts the connection as unauthenticated in the ``PreAuthLedger`` until the WebSocket session
///   authenticates or the connection closes (the ledger sheds the oldest past its caps);
/// - closes the connection when its first request head (up to the blank line) has not arrived within
///   `headTimeout` (slow or silent peers, half-sent headers, a stalled TLS handshake);
/// - on a plaintext port, closes at once a connection whose first byte starts a TLS handshake (a client
///   that expected `wss://`), instead of letting the HTTP parser wait for a line that never comes;
/// - closes the connection once an empty `400 Bad Request` is written (NIO's HTTP error handler answers a
///   malformed request but leaves the socket open).
final class PreAuthGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let ledger: PreAuthLedger
    private let address: String
    private let headTimeout: TimeAmount
    private let plaintext: Bool
    private var timer: Scheduled<Void>?
    private var headSeen = false
    private var firstByte = true
    /// The last bytes of the previous read, to find a `\r\n\r\n` split across reads.
    private var tail: [UInt8] = []
    private var answered = false

    init(ledger: PreAuthLedger, address: String, headTimeout: TimeAmount, plaintext: Bool) {
        self.ledger = ledger
        self.address = address
        self.headTimeout = headTimeout
        self.plaintext = plaintext
    }

    func handlerAdded(context: ChannelHandlerContext) {
        ledger.admit(context.channel, address: address)
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: headTimeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        ledger.release(context.channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        ledger.release(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !headSeen {
            let buffer = unwrapInboundIn(data)
            if firstByte, buffer.readableBytes > 0 {
                firstByte = false
                if plaintext, buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) == 0x16 {
                    context.close(promise: nil)
                    return
                }
            }
            if Self.containsHeadEnd(tail: &tail, buffer.readableBytesView) {
                headSeen = true
                timer?.cancel()
                timer = nil
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !answered else {
            context.write(data, promise: promise)
            return
        }
        answered = true
        let bytes = unwrapOutboundIn(data).readableBytesView
        // NIO's answer to a malformed request is an empty 400 (`Content-Length: 0`); a route's 400 with a body
        // (a JSON error) is written whole and the connection kept. The status line alone decides for every other
        // answer (a WebSocket's 101 among them): the whole head is only read for a 400.
        let badRequest =
            String(decoding: bytes.prefix(12), as: UTF8.self).lowercased() == "http/1.1 400"
            && String(decoding: bytes, as: UTF8.self).lowercased().contains("\r\ncontent-length: 0\r\n")
        guard badRequest else {
            context.write(data, promise: promise)
            return
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.cascade(to: promise)
        let channel = context.channel
        written.futureResult.whenComplete { _ in channel.close(promise: nil) }
        context.writeAndFlush(data, promise: written)
    }

    /// Whether `bytes` (after `tail`, the previous read's last 3 bytes) contain `\r\n\r\n`; updates `tail`.
    /// A scan of the contiguous bytes (every connection's first read goes through it): no per-byte array work.
    static func containsHeadEnd(tail: inout [UInt8], _ bytes: ByteBufferView) -> Bool {
        // Across the previous read's end: at most its last 3 bytes and this read's first 3 hold a match that
        // neither read holds whole.
        if !tail.isEmpty, (tail + bytes.prefix(3)).withUnsafeBufferPointer(headEnd(in:)) { return true }
        if bytes.withContiguousStorageIfAvailable(headEnd(in:)) ?? Array(bytes).withUnsafeBufferPointer(headEnd(in:)) { return true }
        tail = bytes.count >= 3 ? Array(bytes.suffix(3)) : Array((tail + bytes).suffix(3))
        return false
    }

    /// Whether `bytes` contain `\r\n\r\n`.
    private static func headEnd(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 4 else { return false }
        var i = 3
        while i < bytes.count {
            if bytes[i] == 10, bytes[i - 1] == 13, bytes[i - 2] == 10, bytes[i - 3] == 13 { return true }
            i += 1
        }
        return false
    }
}
