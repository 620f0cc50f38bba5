import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// A WebSocket client over a unix-domain socket: what `codex app-server --listen unix://PATH` speaks (one
/// JSON-RPC message per text frame, not newline-delimited JSON).
///
/// swift-websocket's `WebSocketClient` takes a URL with a host and port only, so the upgrade is NIO's own
/// typed client upgrader on a `ClientBootstrap.connect(unixDomainSocketPath:)` channel; fragmented messages
/// are joined by `NIOWebSocketFrameAggregator`.
enum UnixWebSocket {
    /// The upgraded channel: whole WebSocket frames in and out.
    typealias Channel = NIOAsyncChannel<WebSocketFrame, WebSocketFrame>

    enum Upgrade: Sendable {
        case websocket(Channel)
        case refused
    }

    /// Connects to `path` (a socket of this user's, served by a process of this user's) and upgrades to
    /// WebSocket (`GET /`, `Host: localhost`).
    /// - Throws: `CodexError.unavailable` when nothing listens there, it is not this user's, or the upgrade is
    ///   refused.
    static func connect(path: String, maxMessageBytes: Int, timeout: Duration) async throws -> Channel {
        let upgrade: EventLoopFuture<Upgrade>
        let connected = Mutex<(any NIOCore.Channel)?>(nil)
        // Connected and checked first (ours, see ``SharedSocket/connectOwned(at:)``), then handed to NIO.
        let descriptor = try SharedSocket.connectOwned(at: path)
        do {
            upgrade = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .withConnectedSocket(descriptor) { channel in
                    connected.withLock { $0 = channel }
                    return channel.eventLoop.makeCompletedFuture {
                        try configure(channel, maxMessageBytes: maxMessageBytes)
                    }
                }
        } catch {
            throw CodexError.unavailable("no shared codex app-server answers at \(path) (\(error))")
        }
        // A server that accepts but never answers the upgrade (still starting, or not an app-server) must not
        // hold the connection attempt forever.
        let result: Upgrade
        do {
            result = try await withCodexTimeout(timeout, "the server at \(path) did not answer the WebSocket upgrade within \(timeout)") {
                try await upgrade.get()
            }
        } catch {
            connected.withLock { $0 }?.close(promise: nil)
            throw CodexError.unavailable("\(error)")
        }
        switch result {
        case .websocket(let channel): return channel
        case .refused: throw CodexError.unavailable("the server at \(path) refused the WebSocket upgrade")
        }
    }

    private static func configure(_ channel: any NIOCore.Channel, maxMessageBytes: Int) throws -> EventLoopFuture<Upgrade> {
        let upgrader = NIOTypedWebSocketClientUpgrader<Upgrade>(
            maxFrameSize: maxMessageBytes,
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16, maxAccumulatedFrameSize: maxMessageBytes))
                    return .websocket(try Channel(wrappingChannelSynchronously: channel))
                }
            }
        )
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "localhost")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: headers)
        let upgradeConfiguration = NIOTypedHTTPClientUpgradeConfiguration<Upgrade>(
            upgradeRequestHead: head, upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in channel.eventLoop.makeCompletedFuture { .refused } }
        )
        var configuration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: upgradeConfiguration)
        configuration.leftOverBytesStrategy = .forwardBytes
        return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
    }

    /// A masked text frame (a client masks every frame).
    static func textFrame(_ bytes: some Collection<UInt8>) -> WebSocketFrame {
        var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        return WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: buffer)
    }

    /// A masked control frame (pong, close) carrying `data`.
    static func controlFrame(_ opcode: WebSocketOpcode, data: ByteBuffer) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: data)
    }
}

extension Duration {
    /// Whole milliseconds (rounded down).
    var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
