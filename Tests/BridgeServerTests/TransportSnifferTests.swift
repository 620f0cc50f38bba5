import NIOCore
import NIOEmbedded
import Testing

@testable import BridgeServer

/// The TLS port's first-byte decision, without sockets.
@Suite struct TransportSnifferTests {
    /// Stands in for the TLS handler: records what reaches it.
    final class Recorder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        var seen: [UInt8] = []
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            seen += unwrapInboundIn(data).readableBytesView
            context.fireChannelRead(data)
        }
    }

    @Test(arguments: [([UInt8]([0x16, 0x03, 0x01]), true), (Array("GET / HTTP/1.1\r\n".utf8), false), ([0x80, 0x01], false)])
    func firstByteDecides(bytes: [UInt8], isTLS: Bool) throws {
        let channel = EmbeddedChannel()
        var decisions: [TransportSniffer.Transport] = []
        let recorder = Recorder()
        try channel.pipeline.syncOperations.addHandler(
            TransportSniffer { decided in
                decisions.append(decided)
                return decided == .tls ? recorder : nil
            })
        try channel.writeInbound(ByteBuffer(bytes: bytes))
        try channel.writeInbound(ByteBuffer(bytes: [0x16]))  // later bytes decide nothing
        #expect(decisions == [isTLS ? .tls : .plaintext])
        #expect(recorder.seen == (isTLS ? bytes + [0x16] : []))
        #expect(throws: (any Error).self) { try channel.pipeline.syncOperations.handler(type: TransportSniffer.self) }
        var passed: [UInt8] = []
        while let buffer = try channel.readInbound(as: ByteBuffer.self) { passed += buffer.readableBytesView }
        #expect(passed == bytes + [0x16])
        _ = try channel.finish()
    }
}
