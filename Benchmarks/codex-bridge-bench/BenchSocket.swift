import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal WebSocket client on NIO, written for load: it sends the upgrade by hand, parses server frames
/// in place (no JSON), answers pings, and hands whole text messages to a callback on its event loop.
///
/// Deliberately not a general client: no extensions, no TLS, server frames only (unmasked).
final class BenchSocket: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: every mutable field is touched only on `channel.eventLoop` (handler callbacks, and the
    // public methods hop there first).
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Called once the 101 arrived (or the response was something else: `ok` false).
    var onOpen: ((BenchSocket, Bool) -> Void)?
    /// Called for every complete text (or binary) message.
    var onMessage: ((BenchSocket, ByteBuffer) -> Void)?
    /// Called once when the connection ends; the close code if the server sent one.
    var onClose: ((BenchSocket, UInt16?) -> Void)?

    private let host: String
    private let path: String
    private let headers: [(String, String)]
    private(set) var channel: (any Channel)?
    private var upgraded = false
    private var buffer: ByteBuffer?
    private var fragments: ByteBuffer?
    private var closeCode: UInt16?
    private var closed = false
    /// Free for the user of the socket (counters, start times).
    var userCount = 0
    var userTime: UInt64 = 0

    init(host: String, port: Int, path: String = "/", headers: [(String, String)] = []) {
        self.host = "\(host):\(port)"
        self.path = path
        self.headers = headers
    }

    /// Connects and upgrades; callbacks fire on `group`'s loop.
    static func connect(
        group: any EventLoopGroup, host: String = "127.0.0.1", port: Int, headers: [(String, String)] = [],
        configure: (BenchSocket) -> Void
    ) -> EventLoopFuture<BenchSocket> {
        let socket = BenchSocket(host: host, port: port, headers: headers)
        configure(socket)
        return ClientBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(socket) }
            }
            .connect(host: host, port: port)
            .map { _ in socket }
    }

    func channelActive(context: ChannelHandlerContext) {
        channel = context.channel
        var request = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: request)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if buffer == nil || buffer!.readableBytes == 0 {
            buffer = incoming
        } else {
            buffer!.writeBuffer(&incoming)
        }
        if !upgraded {
            guard let view = buffer!.readableBytesView.firstRange(of: [13, 10, 13, 10]) else { return }
            let headEnd = view.upperBound - buffer!.readerIndex
            let head = buffer!.readString(length: headEnd) ?? ""
            upgraded = head.hasPrefix("HTTP/1.1 101")
            onOpen?(self, upgraded)
            if !upgraded {
                context.close(promise: nil)
                return
            }
        }
        parseFrames(context: context)
    }

    private func parseFrames(context: ChannelHandlerContext) {
        while var buf = buffer, buf.readableBytes >= 2 {
            guard let b0 = buf.readInteger(as: UInt8.self), let b1 = buf.readInteger(as: UInt8.self) else { return }
            var length = Int(b1 & 0x7F)
            if length == 126 {
                guard let l = buf.readInteger(as: UInt16.self) else { return }
                length = Int(l)
            } else if length == 127 {
                guard let l = buf.readInteger(as: UInt64.self) else { return }
                length = Int(l)
            }
            guard buf.readableBytes >= length, let payload = buf.readSlice(length: length) else { return }
            buffer = buf
            let fin = b0 & 0x80 != 0
            switch b0 & 0x0F {
            case 0x1, 0x2:
                if fin { onMessage?(self, payload) } else { fragments = payload }
            case 0x0:
                var p = payload
                fragments?.writeBuffer(&p)
                if fin, let whole = fragments {
                    fragments = nil
                    onMessage?(self, whole)
                }
            case 0x8:
                var p = payload
                closeCode = p.readInteger(as: UInt16.self)
                writeFrame(opcode: 0x8, payload: payload, context: context)
                context.close(promise: nil)
                return
            case 0x9:
                writeFrame(opcode: 0xA, payload: payload, context: context)
            default:
                break
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !closed {
            closed = true
            if !upgraded { onOpen?(self, false) }
            onClose?(self, closeCode)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Sends one text frame (masked, as a client must).
    func send(_ text: String) {
        guard let channel else { return }
        channel.eventLoop.execute {
            guard let context = try? channel.pipeline.syncOperations.context(handler: self) else { return }
            self.writeFrame(opcode: 0x1, payload: channel.allocator.buffer(string: text), context: context)
        }
    }

    /// Sends a close frame with `code`; the server answers and closes.
    func close(code: UInt16 = 1000) {
        guard let channel else { return }
        channel.eventLoop.execute {
            guard let context = try? channel.pipeline.syncOperations.context(handler: self) else { return }
            var payload = channel.allocator.buffer(capacity: 2)
            payload.writeInteger(code)
            self.writeFrame(opcode: 0x8, payload: payload, context: context)
        }
    }

    private func writeFrame(opcode: UInt8, payload: ByteBuffer, context: ChannelHandlerContext) {
        var frame = context.channel.allocator.buffer(capacity: payload.readableBytes + 14)
        frame.writeInteger(0x80 | opcode)
        let n = payload.readableBytes
        if n < 126 {
            frame.writeInteger(UInt8(0x80 | n))
        } else if n <= 0xFFFF {
            frame.writeInteger(UInt8(0x80 | 126))
            frame.writeInteger(UInt16(n))
        } else {
            frame.writeInteger(UInt8(0x80 | 127))
            frame.writeInteger(UInt64(n))
        }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        frame.writeBytes(mask)
        var i = 0
        for byte in payload.readableBytesView {
            frame.writeInteger(byte ^ mask[i & 3])
            i += 1
        }
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
    }
}

extension ByteBuffer {
    /// Whether the readable bytes contain `needle` (ASCII).
    func contains(_ needle: String) -> Bool {
        var needle = needle
        return needle.withUTF8 { n in
            withUnsafeReadableBytes { hay in
                guard n.count > 0, hay.count >= n.count, let first = n.first else { return n.count == 0 }
                var i = 0
                let last = hay.count - n.count
                while i <= last {
                    if hay[i] == first {
                        var j = 1
                        while j < n.count, hay[i + j] == n[j] { j += 1 }
                        if j == n.count { return true }
                    }
                    i += 1
                }
                return false
            }
        }
    }

    /// The integer after `"key":` in the readable bytes, if any.
    func integer(after key: String) -> Int64? {
        // A plain byte scan: the generic `firstRange(of:)` on a ByteBufferView made the bench client, not the
        // bridge, the bottleneck of P4.
        var needle = "\"\(key)\":"
        return needle.withUTF8 { n in
            withUnsafeReadableBytes { hay -> Int64? in
                guard !n.isEmpty, hay.count >= n.count else { return nil }
                var i = 0
                while i <= hay.count - n.count {
                    var j = 0
                    while j < n.count, hay[i + j] == n[j] { j += 1 }
                    if j == n.count { break }
                    i += 1
                }
                guard i <= hay.count - n.count else { return nil }
                var k = i + n.count
                var value: Int64 = 0
                var found = false
                while k < hay.count, hay[k] >= 48, hay[k] <= 57 {
                    value = value * 10 + Int64(hay[k] - 48)
                    found = true
                    k += 1
                }
                return found ? value : nil
            }
        }
    }
}
