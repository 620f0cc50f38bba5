import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// A WebSocket server on 127.0.0.1 that plays a linked bridge as a test scripts it: each connection is handed to
/// `handle` as a ``HostilePeer``, which reads what the client sends and writes whatever text the test chooses
/// (bad JSON, numbers out of range, floods). For the client side's hostile-input tests (issue 44): real sockets,
/// a real `BridgeClient` or `MachineLink` on the other end.
public final class HostileBridge: Sendable {
    /// The port it listens on (127.0.0.1).
    public let port: Int
    private let server: Task<Void, Never>
    private let accepted: Counter

    private init(port: Int, server: Task<Void, Never>, accepted: Counter) {
        self.port = port
        self.server = server
        self.accepted = accepted
    }

    /// How many WebSocket connections it accepted so far.
    public var connections: Int { accepted.value }

    /// `ws://127.0.0.1:PORT/`.
    public var url: String { "ws://127.0.0.1:\(port)/" }

    /// Listens and runs `handle` for each connection (concurrently), until ``stop()``; a connection closes when
    /// `handle` returns.
    public static func start(
        maxFrameSize: Int = 1 << 20, _ handle: @escaping @Sendable (HostilePeer) async throws -> Void
    ) async throws -> HostileBridge {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketServerUpgrader<Upgraded>(
                        maxFrameSize: maxFrameSize,
                        shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture {
                                .websocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                            }
                        })
                    let configuration = NIOUpgradableHTTPServerPipelineConfiguration(
                        upgradeConfiguration: .init(
                            upgraders: [upgrader],
                            notUpgradingCompletionHandler: { channel in channel.eventLoop.makeCompletedFuture { .refused } }))
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
                }
            }
        let port = channel.channel.localAddress?.port ?? 0
        let accepted = Counter()
        let server = Task {
            _ = try? await channel.executeThenClose { upgrades in
                try await withThrowingDiscardingTaskGroup { group in
                    for try await upgrade in upgrades {
                        group.addTask {
                            guard case .websocket(let socket) = try? await upgrade.get() else { return }
                            accepted.add()
                            try? await socket.executeThenClose { inbound, outbound in
                                let peer = HostilePeer(inbound: inbound, outbound: outbound)
                                try? await handle(peer)
                                outbound.finish()
                            }
                        }
                    }
                }
            }
        }
        return HostileBridge(port: port, server: server, accepted: accepted)
    }

    /// Stops listening and closes every connection.
    public func stop() {
        server.cancel()
    }

    fileprivate enum Upgraded: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case refused
    }
}

private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add() { count.withLock { $0 += 1 } }
}

/// One connection to a ``HostileBridge``, as its script sees it.
///
/// `@unchecked Sendable`: the script reads (``receive()``) from one task at a time, the one place the inbound
/// iterator is used; writes go through NIO's outbound writer, which is Sendable.
public final class HostilePeer: @unchecked Sendable {
    private var inbound: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator?
    private let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>
    private let sentBytes = Mutex(0)
    private let closed = Mutex<(code: Int?, reason: String?)?>(nil)

    init(inbound: NIOAsyncChannelInboundStream<WebSocketFrame>, outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>) {
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    /// The bytes of text written so far (each ``send(_:)`` counts once written to the socket's buffers, so a
    /// client that stops reading shows here as a sender that stops progressing).
    public var bytesSent: Int { sentBytes.withLock { $0 } }

    /// The client's close code and reason, once it closed.
    public var closeFrame: (code: Int?, reason: String?)? { closed.withLock { $0 } }

    /// The next text message from the client (fragments joined), answering pings; nil once it closed.
    public func receive() async -> String? {
        guard var iterator = inbound else { return nil }
        defer { inbound = iterator }
        var text: [UInt8] = []
        while let frame = try? await iterator.next() {
            switch frame.opcode {
            case .text, .continuation:
                text += frame.unmaskedData.readableBytesView
                if frame.fin { return String(decoding: text, as: UTF8.self) }
            case .ping:
                try? await outbound.write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
            case .connectionClose:
                var data = frame.unmaskedData
                let code = data.readInteger(as: UInt16.self).map(Int.init)
                let reason = data.readString(length: data.readableBytes)
                closed.withLock { $0 = (code, reason) }
                try? await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData))
                return nil
            default:
                continue
            }
        }
        return nil
    }

    /// Writes one text frame; suspends while the socket cannot take more (the client's back-pressure).
    public func send(_ text: String) async throws {
        var buffer = ByteBufferAllocator().buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        try await outbound.write(WebSocketFrame(fin: true, opcode: .text, data: buffer))
        sentBytes.withLock { $0 += text.utf8.count }
    }

    /// Writes one text message as fragments (a text frame, then continuations): a test floods with a large
    /// payload made once, not copied for each message.
    public func send(fragments: [ByteBuffer]) async throws {
        for (index, part) in fragments.enumerated() {
            let frame = WebSocketFrame(fin: index == fragments.count - 1, opcode: index == 0 ? .text : .continuation, data: part)
            try await outbound.write(frame)
        }
        sentBytes.withLock { $0 += fragments.reduce(0) { $0 + $1.readableBytes } }
    }

    /// Closes with `code` (1000 by default).
    public func close(code: UInt16 = 1000) async {
        var buffer = ByteBufferAllocator().buffer(capacity: 2)
        buffer.writeInteger(code)
        try? await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, data: buffer))
        outbound.finish()
    }
}
