import NIOCore

/// One live channel frame, the whole of a binary WebSocket message (BRIDGE.md "Live channel"): a 6-byte header
/// (version, type, a big-endian uint32 stream id) and the payload.
public struct LiveFrame: Sendable, Hashable {
    public enum Kind: UInt8, Sendable, Hashable {
        case data = 0
        /// The sender's receiving side of the stream is full: send no more data on it until `resume`.
        case pause = 1
        case resume = 2
        /// The stream is over, both ways.
        case end = 3
    }

    /// The frame format this bridge speaks.
    public static let version: UInt8 = 1
    public static let headerSize = 6

    public var kind: Kind
    public var streamId: UInt32
    public var payload: ByteBuffer

    public init(_ kind: Kind, streamId: UInt32, payload: ByteBuffer = ByteBuffer()) {
        self.kind = kind
        self.streamId = streamId
        self.payload = payload
    }

    /// The frame as the bytes of one binary message.
    public func encoded(allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: Self.headerSize + payload.readableBytes)
        buffer.writeInteger(Self.version)
        buffer.writeInteger(kind.rawValue)
        buffer.writeInteger(streamId, endianness: .big)
        buffer.writeImmutableBuffer(payload)
        return buffer
    }

    /// Why a binary message is not a frame this bridge takes.
    public enum Refusal: Error, Hashable, Sendable {
        /// Shorter than the header, another version, or a data frame without bytes.
        case malformed(streamId: UInt32?, reason: String)
        /// Longer than `maxFrame`.
        case tooLarge(streamId: UInt32?, size: Int)
        /// A frame type from a later version: ignored.
        case unknownKind(UInt8)
    }

    /// Reads one binary message as a frame of at most `maxFrame` bytes. The payload is a slice of `message` (no
    /// copy).
    public static func parse(_ message: ByteBuffer, maxFrame: Int) -> Result<LiveFrame, Refusal> {
        var message = message
        let size = message.readableBytes
        guard size >= headerSize, let version = message.readInteger(as: UInt8.self),
            let type = message.readInteger(as: UInt8.self), let streamId = message.readInteger(endianness: .big, as: UInt32.self)
        else {
            return .failure(.malformed(streamId: nil, reason: "a live frame is at least \(headerSize) bytes, got \(size)"))
        }
        guard size <= maxFrame else { return .failure(.tooLarge(streamId: streamId, size: size)) }
        guard version == Self.version else {
            return .failure(.malformed(streamId: streamId, reason: "live frame version \(version), this bridge speaks \(Self.version)"))
        }
        guard let kind = Kind(rawValue: type) else { return .failure(.unknownKind(type)) }
        if kind == .data, message.readableBytes == 0 {
            return .failure(.malformed(streamId: streamId, reason: "a data frame carries at least one byte"))
        }
        return .success(LiveFrame(kind, streamId: streamId, payload: kind == .data ? message : ByteBuffer()))
    }
}

/// The live channel's limits, told to the client in `helloAck.live`.
public struct LiveLimits: Sendable, Hashable {
    /// The largest binary message either side may send, header included.
    public var maxFrame: Int
    /// Above this many bytes queued, a sender stops; at or below `lowWater` it starts again.
    public var highWater: Int
    public var lowWater: Int

    /// 64 KiB frames; 128 KiB (about 2.7 s of the voice's 24 kHz 16-bit audio) before the producer waits.
    public static let standard = LiveLimits(maxFrame: 64 * 1024, highWater: 128 * 1024, lowWater: 32 * 1024)

    public init(maxFrame: Int, highWater: Int, lowWater: Int) {
        precondition(maxFrame > LiveFrame.headerSize && lowWater >= 0 && lowWater < highWater, "live limits out of order")
        self.maxFrame = maxFrame
        self.highWater = highWater
        self.lowWater = lowWater
    }

    /// Most payload bytes in one data frame.
    public var maxPayload: Int { maxFrame - LiveFrame.headerSize }
    /// Bytes a client may leave unread in a stream the bridge paused before it counts as flooding.
    public var floodBytes: Int { 4 * highWater }
}
