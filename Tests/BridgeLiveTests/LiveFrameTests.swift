import NIOCore
import Testing

@testable import BridgeLive

@Suite struct LiveFrameTests {
    @Test func aDataFrameIsItsHeaderThenItsBytes() {
        let frame = LiveFrame(.data, streamId: 0x0102_0304, payload: ByteBuffer(bytes: [9, 8, 7]))
        #expect(Array(frame.encoded().readableBytesView) == [1, 0, 1, 2, 3, 4, 9, 8, 7])
        #expect(LiveFrame.parse(frame.encoded(), maxFrame: 64) == .success(frame))
    }

    @Test func controlFramesAreSixBytes() {
        #expect(Array(LiveFrame(.pause, streamId: 7).encoded().readableBytesView) == [1, 1, 0, 0, 0, 7])
        #expect(Array(LiveFrame(.resume, streamId: 7).encoded().readableBytesView) == [1, 2, 0, 0, 0, 7])
        #expect(Array(LiveFrame(.end, streamId: 7).encoded().readableBytesView) == [1, 3, 0, 0, 0, 7])
    }

    @Test func aControlFramesPayloadIsIgnored() {
        #expect(LiveFrame.parse(ByteBuffer(bytes: [1, 1, 0, 0, 0, 7, 42]), maxFrame: 64) == .success(LiveFrame(.pause, streamId: 7)))
    }

    @Test func whatIsNotAFrameIsRefusedWithItsStreamWhenItCouldBeRead() {
        guard case .failure(.malformed(nil, _)) = LiveFrame.parse(ByteBuffer(bytes: [1, 0, 0, 0, 7]), maxFrame: 64) else {
            Issue.record("a short message is malformed")
            return
        }
        guard case .failure(.malformed(7, _)) = LiveFrame.parse(ByteBuffer(bytes: [2, 0, 0, 0, 0, 7, 1]), maxFrame: 64) else {
            Issue.record("another version is malformed")
            return
        }
        guard case .failure(.malformed(7, _)) = LiveFrame.parse(ByteBuffer(bytes: [1, 0, 0, 0, 0, 7]), maxFrame: 64) else {
            Issue.record("an empty data frame is malformed")
            return
        }
        #expect(
            LiveFrame.parse(ByteBuffer(bytes: [1, 0, 0, 0, 0, 7] + [UInt8](repeating: 0, count: 59)), maxFrame: 64)
                == .failure(.tooLarge(streamId: 7, size: 65)))
        #expect(LiveFrame.parse(ByteBuffer(bytes: [1, 9, 0, 0, 0, 7]), maxFrame: 64) == .failure(.unknownKind(9)))
    }
}
