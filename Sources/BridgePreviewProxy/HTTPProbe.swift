import NIOCore
import NIOHTTP1
import NIOPosix

/// Whether a loopback server speaks HTTP: one `HEAD /` (NIO's HTTP codec) and a short wait; any HTTP answer
/// (even an error status) counts, silence or bytes that are not HTTP do not. Nothing is followed.
public struct HTTPProbe: Sendable {
    /// How long one probe may take.
    public var timeout: Duration

    public init(timeout: Duration = .milliseconds(800)) {
        self.timeout = timeout
    }

    public func speaksHTTP(host: String, port: Int) async -> Bool {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
        let answered = eventLoop.makePromise(of: HTTPResponseHead.self)
        let head = HTTPRequestHead(
            version: .http1_1, method: .HEAD, uri: "/", headers: ["Host": "localhost:\(port)", "Connection": "close"])
        let connected = ClientBootstrap(group: eventLoop)
            .connectTimeout(TimeAmount(timeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(HTTPRequestEncoder())
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPResponseDecoder()))
                    try channel.pipeline.syncOperations.addHandler(UpgradeAnswerWaiter(answered: answered))
                }
            }
            .connect(host: host, port: port)
        connected.whenFailure { answered.fail($0) }
        connected.whenSuccess { channel in
            channel.write(HTTPClientRequestPart.head(head), promise: nil)
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        }
        let deadline = eventLoop.scheduleTask(in: TimeAmount(timeout)) { answered.fail(ChannelError.connectTimeout(TimeAmount(timeout))) }
        defer {
            deadline.cancel()
            connected.whenSuccess { $0.close(promise: nil) }
        }
        return (try? await answered.futureResult.get()) != nil
    }
}
