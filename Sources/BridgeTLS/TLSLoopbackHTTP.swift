import BridgeOps
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// A minimal HTTPS GET to `127.0.0.1` that pins the server's certificate fingerprint: `status` asks a bridge
/// serving TLS for `/healthz` and `/metrics` with it. The request (and its bearer token) is sent only after
/// the certificate's SHA-256 matched.
public enum TLSLoopbackHTTP {
    public typealias Response = LoopbackHTTP.Response

    /// GETs `path` from `127.0.0.1:port` over TLS; nil when nothing answers within `timeout`, the TLS
    /// handshake fails, or the certificate's fingerprint is not `fingerprint`.
    public static func get(
        host: String = "127.0.0.1", port: Int, path: String, fingerprint: String, bearer: String? = nil, timeout: Duration = .seconds(2)
    ) async -> Response? {
        let request = LoopbackHTTP.request(port: port, path: path, bearer: bearer)
        // One loop for the channel and the promise: a promise is completed on its own loop.
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let promise = loop.makePromise(of: [UInt8].self)
        do {
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .none
            let context = try NIOSSLContext(configuration: configuration)
            let milliseconds = Int64(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
            let requestBytes = Array(request.utf8)
            let expected = fingerprint
            let channel = try await ClientBootstrap(group: loop)
                .connectTimeout(.milliseconds(milliseconds))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: nil))
                        try channel.pipeline.syncOperations.addHandler(
                            PinnedRequestHandler(fingerprint: expected, request: requestBytes, promise: promise))
                    }
                }
                .connect(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port).get()
            channel.eventLoop.scheduleTask(in: .milliseconds(milliseconds)) {
                promise.fail(ChannelError.connectTimeout(.milliseconds(milliseconds)))
                channel.close(promise: nil)
            }
            let bytes = try await promise.futureResult.get()
            return LoopbackHTTP.parse(bytes)
        } catch {
            loop.execute { promise.fail(error) }
            return nil
        }
    }

}

/// Sends the request once the handshake completed with the pinned certificate; collects the response
/// until the server closes.
private final class PinnedRequestHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let fingerprint: String
    private let request: [UInt8]
    private let promise: EventLoopPromise<[UInt8]>
    private var received: [UInt8] = []

    init(fingerprint: String, request: [UInt8], promise: EventLoopPromise<[UInt8]>) {
        self.fingerprint = fingerprint
        self.request = request
        self.promise = promise
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            let handler = try? context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self)
            guard let der = try? handler?.peerCertificate?.toDERBytes(), TLSFingerprint.of(der: der) == fingerprint else {
                promise.fail(ChannelError.inputClosed)
                context.close(promise: nil)
                return
            }
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: request)), promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        if let bytes = buffer.readBytes(length: buffer.readableBytes) { received += bytes }
        if received.count > 8 << 20 {
            promise.fail(ChannelError.inputClosed)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.succeed(received)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A server that closes without close_notify still delivered its whole HTTP/1.0 response.
        if let sslError = error as? NIOSSLError, case .uncleanShutdown = sslError {
            return
        }
        promise.fail(error)
        context.close(promise: nil)
    }
}
