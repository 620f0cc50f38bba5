import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOSSL
import NIOWebSocket

/// What to do with a WebSocket upgrade request.
enum UpgradeDecision: Sendable {
    /// Upgrade, and run a connection with this setup on the WebSocket.
    case upgrade(ConnectionSetup)
    /// Refuse with this HTTP status (e.g. 401 for a bad Bearer token, 429 when rate limited).
    case refuse(HTTPResponse.Status)
}

/// An upgrade decision taken on the event loop, or one that must wait (a Bearer token to check).
enum UpgradeStep: Sendable {
    case now(UpgradeDecision)
    case later(@Sendable () async -> UpgradeDecision)
}

/// An HTTP/1.1 child channel that upgrades to WebSocket with NIO's upgrader, deciding on the event loop,
/// answering a refused upgrade with the status the bridge chooses (401 for a bad `Authorization: Bearer`
/// token, 403, 429, 503), and handing an upgraded channel to a ``ConnectionHandler`` that lives on its event
/// loop. Plain HTTP requests (`/healthz`,
/// `/metrics`) go to the Hummingbird router as usual. With `tls`, the first byte a peer sends decides: a TLS
/// handshake (0x16) puts the TLS handler first in the pipeline, so the WebSocket and the HTTP routes share the
/// port under TLS; anything else is plain HTTP, answered only by `plaintextResponder` (the "Trust this
/// workstation" page, or a redirect to https), never by the app or the API, and never upgraded.
struct BridgeUpgradeChannel: ServerChildChannel, HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        /// The connection lives on its event loop from now on (``ConnectionHandler``).
        case websocket
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case refused(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, HTTPResponse.Status)
        /// Plain HTTP on a TLS port: only the plaintext responder answers.
        case plaintext(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    var responder: HTTPChannelHandler.Responder
    /// Answers plain HTTP on a TLS port (with `tls` only).
    let plaintextResponder: HTTPChannelHandler.Responder?
    let maxFrameSize: Int
    let tls: TLSContextSource?
    /// Unauthenticated connections, capped; nil: no pre-authentication limits.
    let preAuth: PreAuthLedger?
    /// How long a connection may take to send its first request head.
    let requestHeadTimeout: Duration
    /// Runs on the channel's event loop: most upgrades are decided there, without a task hop.
    let shouldUpgrade: @Sendable (HTTPRequest, any Channel, Logger) -> UpgradeStep
    /// Runs on the event loop once the upgrade response is written: puts the connection on the WebSocket
    /// pipeline NIO's upgrader built (frame decoder and encoder).
    let connect: @Sendable (ConnectionSetup, any Channel) throws -> Void

    init(
        responder: @escaping HTTPChannelHandler.Responder,
        plaintextResponder: HTTPChannelHandler.Responder? = nil,
        maxFrameSize: Int,
        tls: TLSContextSource? = nil,
        preAuth: PreAuthLedger? = nil,
        requestHeadTimeout: Duration = .seconds(5),
        shouldUpgrade: @escaping @Sendable (HTTPRequest, any Channel, Logger) -> UpgradeStep,
        connect: @escaping @Sendable (ConnectionSetup, any Channel) throws -> Void
    ) {
        self.responder = responder
        self.plaintextResponder = plaintextResponder
        self.maxFrameSize = maxFrameSize
        self.connect = connect
        self.tls = tls
        self.preAuth = preAuth
        self.requestHeadTimeout = requestHeadTimeout
        self.shouldUpgrade = shouldUpgrade
    }

    /// A plain HTTP connection (the web app's files, `/healthz`) idle this long between requests is closed.
    static let httpIdleTimeout: Duration = .seconds(30)

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        // Whether this connection speaks TLS: known once its first byte arrived, before any request head.
        let transport = NIOLoopBoundBox<TransportSniffer.Transport>(tls == nil ? .plaintext : .undecided, eventLoop: channel.eventLoop)
        let tlsPort = tls != nil
        return channel.eventLoop.makeCompletedFuture {
            if let tls {
                try channel.pipeline.syncOperations.addHandler(
                    TransportSniffer { decided in
                        transport.value = decided
                        return decided == .tls ? NIOSSLServerHandler(context: tls.current()) : nil
                    })
            }
            if let preAuth {
                let address = channel.remoteAddress?.ipAddress ?? "unknown"
                try channel.pipeline.syncOperations.addHandler(
                    PreAuthGuard(ledger: preAuth, address: address, headTimeout: TimeAmount(requestHeadTimeout), plaintext: !tlsPort))
            }
            // Only touched on the channel's event loop.
            let decision = NIOLoopBoundBox<UpgradeDecision?>(nil, eventLoop: channel.eventLoop)
            let shouldUpgrade = self.shouldUpgrade
            let connect = self.connect
            let upgrader = NIOTypedWebSocketServerUpgrader<UpgradeResult>(
                maxFrameSize: maxFrameSize,
                enableAutomaticErrorHandling: false,  // ConnectionHandler answers protocol errors
                shouldUpgrade: { channel, head in
                    guard transport.value == .tls || !tlsPort else {
                        // Plain HTTP on a TLS port: no WebSocket (no credential) ever travels in the clear.
                        decision.value = .refuse(Self.tlsRequired)
                        return channel.eventLoop.makeSucceededFuture(nil)
                    }
                    let request: HTTPRequest
                    do {
                        request = try HTTPRequest(head, secure: tlsPort, splitCookie: false)
                    } catch {
                        decision.value = .refuse(.badRequest)
                        return channel.eventLoop.makeSucceededFuture(nil)
                    }
                    let future: EventLoopFuture<UpgradeDecision>
                    switch shouldUpgrade(request, channel, logger) {
                    case .now(let result):
                        future = channel.eventLoop.makeSucceededFuture(result)
                    case .later(let decide):
                        let promise = channel.eventLoop.makePromise(of: UpgradeDecision.self)
                        promise.completeWithTask { await decide() }
                        future = promise.futureResult
                    }
                    return future.map { result -> HTTPHeaders? in
                        decision.value = result
                        if case .upgrade = result { return HTTPHeaders() }
                        return nil
                    }
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        guard case .upgrade(let setup) = decision.value else {
                            preconditionFailure("upgrade pipeline without an upgrade decision")
                        }
                        try connect(setup, channel)
                        return UpgradeResult.websocket
                    }
                }
            )
            let serverUpgradeConfiguration = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let secure = transport.value == .tls
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: secure))
                        try channel.pipeline.syncOperations.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: Self.httpIdleTimeout, logger: logger))
                        let asyncChannel = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true)
                        )
                        if case .refuse(let status) = decision.value {
                            return UpgradeResult.refused(asyncChannel, status)
                        }
                        return tlsPort && !secure ? UpgradeResult.plaintext(asyncChannel) : UpgradeResult.notUpgraded(asyncChannel)
                    }
                }
            )
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<UpgradeResult>(
                upgradeConfiguration: serverUpgradeConfiguration)
            configuration.enablePipelining = false
            configuration.enableErrorHandling = true  // a malformed request gets 400 and a close
            configuration.enableResponseHeaderValidation = false
            let result = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            return Value(upgradeResult: result, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgradeResult.get() {
            case .notUpgraded(let http):
                await handleHTTP(asyncChannel: http, logger: logger)
            case .refused(let http, let status):
                await refuse(http, status: status, logger: logger)
            case .plaintext(let http):
                guard let plaintextResponder else {
                    value.channel.close(promise: nil)
                    return
                }
                var plain = self
                plain.responder = plaintextResponder
                await plain.handleHTTP(asyncChannel: http, logger: logger)
            case .websocket:
                break
            }
        } catch let error as ChannelError where error == .inputClosed {
            logger.trace("Upgrade failed as input was closed")
            value.channel.close(promise: nil)
        } catch {
            // A malformed request (NIO's error handler has answered 400): nothing more will be read.
            logger.debug("Upgrade failed", metadata: ["error.type": "\(type(of: error))"])
            value.channel.close(promise: nil)
        }
    }

    /// Answers a refused upgrade with `status` and closes.
    private func refuse(_ http: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, status: HTTPResponse.Status, logger: Logger) async {
        do {
            try await http.executeThenClose { _, outbound in
                let body = ByteBuffer(string: Self.body(for: status))
                var headers: HTTPFields = [.connection: "close", .contentLength: "\(body.readableBytes)", .contentType: "application/json"]
                if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
                if status == .tooManyRequests { headers[.retryAfter] = "60" }
                try await outbound.write(contentsOf: [.head(HTTPResponse(status: status, headerFields: headers)), .body(body), .end(nil)])
            }
        } catch {
            logger.trace("Failed to write the refusal")
        }
    }

    /// 426: a WebSocket upgrade in plain HTTP on a TLS port.
    static let tlsRequired = HTTPResponse.Status(code: 426, reasonPhrase: "Upgrade Required")

    static func body(for status: HTTPResponse.Status) -> String {
        switch status {
        case .unauthorized: #"{"code":"unauthorized","message":"invalid, expired or revoked token"}"#
        case .tooManyRequests: #"{"code":"rate_limited","message":"too many failed authentications from this address; try again later"}"#
        case .serviceUnavailable: #"{"code":"unavailable","message":"the server is shutting down"}"#
        case .forbidden: #"{"code":"forbidden","message":"WebSocket connections from this page's origin are not allowed"}"#
        case tlsRequired: #"{"code":"tls_required","message":"this port serves TLS: connect with wss://"}"#
        default: #"{"code":"bad_request","message":"invalid WebSocket upgrade request"}"#
        }
    }
}
