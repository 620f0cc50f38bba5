import BridgePreview
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix

/// Proxies a WebSocket upgrade (a dev server's hot reload) as bytes: with the live session of this origin, from a
/// page of this origin (``PreviewRequestCheck``: another preview's page may not open it), while the dev server's
/// process is still the one the preview was opened for, the upgrade request goes to the dev server (its headers
/// rewritten like any request's); when the dev server answers 101, the browser gets the 101 with the dev server's
/// `Sec-WebSocket-*` fields and the two connections are glued. Frames are not parsed: the dev server and the
/// browser speak WebSocket to each other.
///
/// When any of that fails, or the dev server refuses the upgrade, the build fails and the browser's connection is
/// closed unanswered (NIO's upgrader then fires the error down a pipeline that has nothing to answer with). One
/// per connection (it holds that connection's dev-server channel between the two steps); runs on the
/// connection's event loop.
struct WebSocketTunnel: NIOTypedHTTPServerProtocolUpgrader, Sendable {
    typealias UpgradeResult = PreviewChannel.UpgradeResult

    struct Refused: Error {}

    let supportedProtocol = "websocket"
    let requiredUpgradeHeaders: [String] = []
    let previews: Previews
    let limits: PreviewProxy.Limits
    let logger: Logger
    /// The dev server's channel and the session, between the 101 and the glue.
    let pending: NIOLoopBoundBox<(upstream: any Channel, session: String)?>

    func buildUpgradeResponse(channel: any Channel, upgradeRequest head: HTTPRequestHead, initialResponseHeaders: HTTPHeaders)
        -> EventLoopFuture<HTTPHeaders>
    {
        let originPort = channel.localAddress?.port ?? 0
        let ownOrigin = "\(previews.scheme)://\(head.headers["host"].first ?? "")"
        let cookies = PreviewCookie.values(port: originPort, inCookieHeaders: head.headers["cookie"])
        guard PreviewRequestCheck.refusal(head.headers.map { (name: $0.name, value: $0.value) }, ownOrigin: ownOrigin) == nil,
            let session = previews.access.session(cookies: cookies, originPort: originPort), head.uri.hasPrefix("/")
        else {
            return channel.eventLoop.makeFailedFuture(Refused())
        }
        let grant = session.grant
        let previews = self.previews
        return channel.eventLoop.makeFutureWithTask { await previews.ownership(grant) }.flatMap { ownership in
            guard ownership == .serves else { return channel.eventLoop.makeFailedFuture(Refused()) }
            return connect(
                channel: channel, head: head, session: session, ownOrigin: ownOrigin, initialResponseHeaders: initialResponseHeaders)
        }
    }

    /// Sends the upgrade to the dev server; succeeds with the browser's 101 fields once it answers 101.
    private func connect(
        channel: any Channel, head: HTTPRequestHead, session: PreviewSessionBook.Session, ownOrigin: String,
        initialResponseHeaders: HTTPHeaders
    ) -> EventLoopFuture<HTTPHeaders> {
        let grant = session.grant
        let rules = ProxyHeaders(port: grant.port, previewOrigin: ownOrigin)
        let fields = rules.request(head.headers.map { (name: $0.name, value: $0.value) }, keepUpgrade: true)
        let upstreamHead = HTTPRequestHead(
            version: .http1_1, method: head.method, uri: head.uri, headers: HTTPHeaders(fields.map { ($0.name, $0.value) }))
        let answered = channel.eventLoop.makePromise(of: HTTPResponseHead.self)
        let pending = self.pending
        return ClientBootstrap(group: channel.eventLoop)
            .connectTimeout(TimeAmount(limits.connectTimeout))
            .channelInitializer { upstream in
                upstream.eventLoop.makeCompletedFuture {
                    try upstream.pipeline.syncOperations.addHandler(HTTPRequestEncoder())
                    try upstream.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes)))
                    try upstream.pipeline.syncOperations.addHandler(UpgradeAnswerWaiter(answered: answered))
                }
            }
            .connect(host: grant.connectHost, port: grant.port)
            .flatMapError { error in
                answered.fail(error)  // (a promise completed twice keeps its first result)
                return channel.eventLoop.makeFailedFuture(error)
            }
            .flatMap { upstream in
                upstream.write(HTTPClientRequestPart.head(upstreamHead), promise: nil)
                upstream.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
                let timeout = upstream.eventLoop.scheduleTask(in: TimeAmount(limits.responseHeadTimeout)) {
                    answered.fail(Refused())
                }
                return answered.futureResult.always { _ in timeout.cancel() }.flatMapThrowing { response in
                    guard response.status == .switchingProtocols else {
                        upstream.close(promise: nil)
                        throw Refused()
                    }
                    pending.value = (upstream, session.id)
                    var headers = initialResponseHeaders
                    for (name, value) in response.headers where name.lowercased().hasPrefix("sec-websocket-") {
                        headers.add(name: name, value: value)
                    }
                    return headers
                }.flatMapErrorThrowing { error in
                    upstream.close(promise: nil)
                    throw error
                }
            }
    }

    func upgrade(channel: any Channel, upgradeRequest: HTTPRequestHead) -> EventLoopFuture<UpgradeResult> {
        channel.eventLoop.makeCompletedFuture {
            guard let (upstream, session) = pending.value.map({ ($0.upstream, $0.session) }) else { throw Refused() }
            pending.value = nil
            guard previews.access.track(channel, session: session) != .ended else {
                upstream.close(promise: nil)
                throw Refused()
            }
            let (browserSide, serverSide) = GlueHandler.matchedPair()
            try channel.pipeline.syncOperations.addHandler(browserSide)
            let pipeline = upstream.pipeline.syncOperations
            try pipeline.addHandler(serverSide)
            // The decoder goes last: bytes the dev server sent after its 101 reach the glue as it leaves.
            pipeline.removeHandler(try pipeline.handler(type: UpgradeAnswerWaiter.self), promise: nil)
            pipeline.removeHandler(try pipeline.handler(type: HTTPRequestEncoder.self), promise: nil)
            pipeline.removeHandler(try pipeline.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self), promise: nil)
            logger.debug("Preview WebSocket proxied", metadata: ["bridge.preview.session": "\(session)"])
            return .tunnel
        }
    }
}

/// Waits for the dev server's answer to the upgrade request (its head; nothing after it is looked at).
final class UpgradeAnswerWaiter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let answered: EventLoopPromise<HTTPResponseHead>
    private var done = false

    init(answered: EventLoopPromise<HTTPResponseHead>) {
        self.answered = answered
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !done, case .head(let head) = unwrapInboundIn(data) else { return }
        done = true
        answered.succeed(head)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(ChannelError.eof)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(error)
        context.close(promise: nil)
    }

    private func finish(_ error: any Error) {
        guard !done else { return }
        done = true
        answered.fail(error)
    }
}
