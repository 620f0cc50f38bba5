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
        let buffer = unwrapOutboundIn(data)
        // NIO's answer to a malformed request is an empty 400 (`Content-Length: 0`); a route's 400 with a body
        // (a JSON error) is written whole and the connection kept.
        let head = String(decoding: buffer.readableBytesView, as: UTF8.self).lowercased()
        let badRequest = head.hasPrefix("http/1.1 400") && head.contains("\r\ncontent-length: 0\r\n")
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
    static func containsHeadEnd(tail: inout [UInt8], _ bytes: ByteBufferView) -> Bool {
        let pattern: [UInt8] = [13, 10, 13, 10]
        var window = tail
        for byte in bytes {
            window.append(byte)
            if window.count > 4 { window.removeFirst(window.count - 4) }
            if window == pattern { return true }
        }
        tail = Array(window.suffix(3))
        return false
    }
}
