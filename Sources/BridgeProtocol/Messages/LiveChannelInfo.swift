/// `helloAck.live`: the bridge speaks the live channel (binary frames for live-only streams such as the
/// voice's audio; BRIDGE.md "Live channel") with these limits.
public struct LiveChannelInfo: Codable, Sendable, Hashable {
    /// The frame format's version.
    public var version: Int
    /// The largest binary message either side may send, header included, in bytes.
    public var maxFrame: Int
    /// Back-pressure's watermarks, in bytes: a sender stops above `highWater` and starts again at `lowWater`.
    public var highWater: Int
    public var lowWater: Int

    public init(version: Int, maxFrame: Int, highWater: Int, lowWater: Int) {
        self.version = version
        self.maxFrame = maxFrame
        self.highWater = highWater
        self.lowWater = lowWater
    }
}
