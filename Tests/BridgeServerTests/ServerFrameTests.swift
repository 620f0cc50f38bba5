import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import BridgeServer

@Suite struct ServerFrameTests {
    /// Every length form of RFC 6455 (7-bit, 16-bit, 64-bit), read back by NIO's own frame decoder.
    @Test(arguments: [0, 1, 125, 126, 65_535, 65_536, 200_000])
    func framesDecodeWithNIO(length: Int) throws {
        let text = String(repeating: "é", count: length / 2) + String(repeating: "x", count: length % 2)
        let payload = ByteBuffer(bytes: (0..<length).map { UInt8(truncatingIfNeeded: $0) })
        for (bytes, opcode) in [
            (ServerFrame.text(text, allocator: ByteBufferAllocator()), WebSocketOpcode.text),
            (ServerFrame.frame(.binary, payload: payload, allocator: ByteBufferAllocator()), .binary),
        ] {
            let frames = try ConnectionHandlerTests.decoded(bytes)
            let frame = try #require(frames.first)
            #expect(frames.count == 1 && frame.fin && frame.opcode == opcode && frame.maskKey == nil)
            if opcode == .text {
                #expect(String(buffer: frame.unmaskedData) == text)
            } else {
                #expect(frame.unmaskedData == payload)
            }
        }
    }
}
