import BridgeTLS
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// A minimal HTTP/1.0 GET to a bridge on this machine with a deadline: how `status` asks a running bridge for
/// `/healthz` and `/metrics`. Over TLS it pins the certificate: the request (and its bearer token) is sent only
/// after the server's certificate has the expected SHA-256 fingerprint.
public enum LoopbackHTTP {
    /// A response: the status code and the body.
    public struct Response: Sendable, Hashable {
        public var status: Int
        public var body: String
    }

    /// The most a response may hold; a larger one is no bridge's.
    static let responseLimit = 8 << 20

    /// GETs `path` from `host:port` (an IP address, `[v6]` allowed); nil when nothing answers within `timeout`,
    /// or, with `pin`, when the TLS handshake fails or the chain is not acceptable for `pin` (``PinnedChain``: the
    /// leaf is the pinned certificate, or was issued by the pinned CA). The bearer
    /// token, when given, goes only into the `Authorization` header.
    public static func get(
        host: String = "127.0.0.1", port: Int, path: String, bearer: String? = nil, pin: String? = nil,
        timeout: Duration = .seconds(2)
    ) async -> Response? {
        let requestBytes = Array(request(port: port, path: path, bearer: bearer).utf8)
        // One loop for the channel and the promise: a promise is completed on its own loop.
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let promise = loop.makePromise(of: [UInt8].self)
        let milliseconds = max(1, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let deadline = loop.scheduleTask(in: .milliseconds(milliseconds)) {
            promise.fail(ChannelError.connectTimeout(.milliseconds(milliseconds)))
        }
        do {
            let context = try pin.map { _ in
                var configuration = TLSConfiguration.makeClientConfiguration()
                // The pin replaces chain verification (the callback below); not `.none`, or NIOSSL never calls it.
                configuration.certificateVerification = .noHostnameVerification
                return try NIOSSLContext(configuration: configuration)
            }
            let channel = try await ClientBootstrap(group: loop)
                .connectTimeout(.milliseconds(milliseconds))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let context {
                            let handler = try NIOSSLClientHandler(context: context, serverHostname: nil) { certificates, verdict in
                                let chain = certificates.compactMap { try? $0.toDERBytes() }
                                let accepted = pin.map { PinnedChain.accepts(chain: chain, pin: $0) } ?? false
                                verdict.succeed(accepted ? .certificateVerified : .failed)
                            }
                            try channel.pipeline.syncOperations.addHandler(handler)
                        }
                        try channel.pipeline.syncOperations.addHandler(ResponseCollector(pin: pin, request: requestBytes, promise: promise))
                    }
                }
                .connect(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: port).get()
            promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
            let bytes = try await promise.futureResult.get()
            deadline.cancel()
            return parse(bytes)
        } catch {
            deadline.cancel()
            loop.execute { promise.fail(error) }
            return nil
        }
    }

    /// The request `get` sends.
    static func request(port: Int, path: String, bearer: String?) -> String {
        var request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let bearer { request += "Authorization: Bearer \(bearer)\r\n" }
        return request + "\r\n"
    }

    /// The status and body of a whole HTTP/1.x response; nil when it is not one.
    static func parse(_ bytes: [UInt8]) -> Response? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let headerEnd = text.range(of: "\r\n\r\n") else { return nil }
        let statusLine = text[..<headerEnd.lowerBound].split(separator: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else { return nil }
        return Response(status: status, body: String(text[headerEnd.upperBound...]))
    }
}

/// Sends the request once the channel is active (plain) or the handshake completed with the pinned certificate
/// (TLS); collects the response until the server closes.
private final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let pin: String?
    private let request: [UInt8]
    private let promise: EventLoopPromise<[UInt8]>
    private var received: [UInt8] = []

    init(pin: String?, request: [UInt8], promise: EventLoopPromise<[UInt8]>) {
        self.pin = pin
        self.request = request
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        if pin == nil { send(context: context) }
        context.fireChannelActive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The handshake completes only when the verification callback accepted the chain for the pin.
        if pin != nil, case TLSUserEvent.handshakeCompleted = event {
            send(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func send(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: request)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        if let bytes = buffer.readBytes(length: buffer.readableBytes) { received += bytes }
        if received.count > LoopbackHTTP.responseLimit {
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
        if let sslError = error as? NIOSSLError, case .uncleanShutdown = sslError { return }
        promise.fail(error)
        context.close(promise: nil)
    }
}
