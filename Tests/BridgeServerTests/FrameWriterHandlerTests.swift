import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import BridgeServer

@Suite struct FrameWriterHandlerTests {
    /// Every length form of RFC 6455 (7-bit, 16-bit, 64-bit), read back by NIO's own frame decoder.
    @Test(arguments: [0, 1, 125, 126, 65_535, 65_536, 200_000])
    func textFramesDecodeWithNIO(length: Int) throws {
        let text = String(repeating: "é", count: length / 2) + String(repeating: "x", count: length % 2)
        let frame = FrameWriterHandler.textFrame(text, allocator: ByteBufferAllocator())
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 20)))
        try channel.writeInbound(frame)
        let decoded = try #require(try channel.readInbound(as: WebSocketFrame.self))
        #expect(decoded.fin && decoded.opcode == .text && decoded.maskKey == nil)
        #expect(String(buffer: decoded.unmaskedData) == text)
        _ = try channel.finish()
    }
}
