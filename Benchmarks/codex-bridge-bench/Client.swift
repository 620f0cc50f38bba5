import NIOCore
import NIOPosix

/// Client-side building blocks shared by the figures.
enum Client {
    /// Connects, upgrades, sends `first`, and succeeds with the socket and the elapsed ns when a message
    /// matching `done` arrives. Later messages go to `then` (set before the first one is sent).
    static func open(
        group: any EventLoopGroup, port: Int, headers: [(String, String)] = [], first: String,
        done: @escaping (ByteBuffer) -> Bool = { _ in true },
        then: ((BenchSocket, ByteBuffer) -> Void)? = nil
    ) -> EventLoopFuture<(BenchSocket, UInt64)> {
        let loop = group.next()
        let promise = loop.makePromise(of: (BenchSocket, UInt64).self)
        let start = monotonicNanos()
        let connected = BenchSocket.connect(group: loop, port: port, headers: headers) { socket in
            socket.onOpen = { socket, ok in
                if ok { socket.send(first) } else { promise.fail(BenchError("upgrade refused")) }
            }
            socket.onMessage = { socket, message in
                if socket.userCount == 0 {
                    if done(message) {
                        socket.userCount = 1
                        promise.succeed((socket, monotonicNanos() - start))
                    }
                } else {
                    then?(socket, message)
                }
            }
            socket.onClose = { _, code in promise.fail(BenchError("closed before the answer (code \(code.map(String.init) ?? "none"))")) }
        }
        connected.whenFailure { promise.fail($0) }
        return promise.futureResult
    }

    static func hello(_ token: String) -> String { #"{"kind":"hello","version":1,"token":"\#(token)"}"# }
    static let initialize = #"{"id":1,"method":"initialize","params":{"clientInfo":{"name":"bench","version":"0.1.0"}}}"#

    /// The bridge handshake: hello → helloAck.
    static func bridge(group: any EventLoopGroup, server: ServerProcess, then: ((BenchSocket, ByteBuffer) -> Void)? = nil)
        -> EventLoopFuture<(BenchSocket, UInt64)>
    {
        open(group: group, port: server.port, first: hello(server.token), done: { $0.contains("helloAck") }, then: then)
    }

    /// The peer's: Bearer upgrade, then the `initialize` round trip.
    static func peer(group: any EventLoopGroup, server: ServerProcess) -> EventLoopFuture<(BenchSocket, UInt64)> {
        open(
            group: group, port: server.port, headers: [("Authorization", "Bearer \(server.token)")], first: initialize,
            done: { $0.contains("\"id\":1") }
        )
    }

    /// Runs `count` handshakes with at most `concurrency` at once; returns each one's latency in ms.
    static func handshakes(
        count: Int, concurrency: Int, keepOpen: Bool = false, seconds: Double,
        _ one: @escaping () -> EventLoopFuture<(BenchSocket, UInt64)>
    ) throws -> (latencies: [Double], sockets: [BenchSocket]) {
        var latencies: [Double] = []
        var sockets: [BenchSocket] = []
        latencies.reserveCapacity(count)
        var done = 0
        while done < count {
            let wave = min(concurrency, count - done)
            let futures = (0..<wave).map { _ in one() }
            for future in futures {
                let (socket, ns) = try waitFor(future, seconds: seconds, "handshake")
                latencies.append(Double(ns) / 1e6)
                if keepOpen { sockets.append(socket) } else { socket.channel?.close(promise: nil) }
            }
            done += wave
        }
        return (latencies, sockets)
    }
}

/// TCP echo for the "limit" of P1: a bare connect plus one 100-byte round trip.
final class EchoHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(data, promise: nil)
    }
}

/// The client half of the echo limit: writes 100 bytes, succeeds when 100 came back.
final class EchoClient: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: `received` is only touched on the channel's event loop.
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let promise: EventLoopPromise<UInt64>
    let start: UInt64
    var received = 0

    init(promise: EventLoopPromise<UInt64>, start: UInt64) {
        self.promise = promise
        self.start = start
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(repeating: 0x61, count: 100)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        received += unwrapInboundIn(data).readableBytes
        if received >= 100 {
            promise.succeed(monotonicNanos() - start)
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    static func once(group: any EventLoopGroup, port: Int) -> EventLoopFuture<(BenchSocket, UInt64)> {
        let loop = group.next()
        let promise = loop.makePromise(of: UInt64.self)
        let start = monotonicNanos()
        ClientBootstrap(group: loop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(EchoClient(promise: promise, start: start))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .whenFailure { promise.fail($0) }
        // The socket is closed by the handler; the dummy BenchSocket keeps `handshakes` generic.
        return promise.futureResult.map { (BenchSocket(host: "127.0.0.1", port: port), $0) }
    }
}
