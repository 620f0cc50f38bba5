import BridgePreview
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOSSL

/// A preview port's HTTP/1.1 child channel: TLS first when the bridge serves TLS (the same certificate as the
/// main port; plain HTTP is not answered there), then NIO's HTTP server pipeline with, on a preview origin, one
/// upgrader, the ``WebSocketTunnel``. Every other request goes to the Hummingbird responder (``PreviewResponder``
/// on an origin, ``PreviewDoor`` on the preview port).
struct PreviewChannel: ServerChildChannel, HTTPChannelHandler {
    enum UpgradeResult: Sendable {
        /// The connection is glued to the dev server's; nothing more to do here.
        case tunnel
        case notUpgraded(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgradeResult: EventLoopFuture<UpgradeResult>
        let channel: any Channel
    }

    var responder: HTTPChannelHandler.Responder
    let previews: Previews
    /// Whether WebSocket upgrades go to the dev server (a preview origin; the preview port has none).
    let upgrades: Bool
    let tls: (@Sendable () -> NIOSSLContext)?
    let limits: PreviewProxy.Limits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let secure = tls != nil
        return channel.eventLoop.makeCompletedFuture {
            if let tls {
                try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls()))
            }
            let tunnel = WebSocketTunnel(
                previews: previews, limits: limits, logger: logger,
                pending: NIOLoopBoundBox(nil, eventLoop: channel.eventLoop))
            let limits = self.limits
            let upgrade = NIOTypedHTTPServerUpgradeConfiguration<UpgradeResult>(
                upgraders: upgrades ? [tunnel] : [],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: secure))
                        try channel.pipeline.syncOperations.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: limits.idleTimeout, logger: logger))
                        return UpgradeResult.notUpgraded(
                            try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true)))
                    }
                }
            )
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<UpgradeResult>(upgradeConfiguration: upgrade)
            configuration.enablePipelining = false
            configuration.enableErrorHandling = true
            configuration.enableResponseHeaderValidation = false
            let result = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            // Before its first request head a connection is anyone's: closed unless the head comes in time. After it,
            // the idle timeout (HTTP) or nothing (a WebSocket idles as long as the dev server lets it).
            let headTimeout = channel.eventLoop.scheduleTask(in: TimeAmount(limits.requestHeadTimeout)) { channel.close(promise: nil) }
            result.whenComplete { _ in headTimeout.cancel() }
            return Value(upgradeResult: result, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgradeResult.get() {
            case .notUpgraded(let http):
                await handleHTTP(asyncChannel: http, logger: logger)
            case .tunnel:
                break
            }
        } catch {
            logger.debug("Preview connection failed", metadata: ["error.type": "\(type(of: error))"])
            value.channel.close(promise: nil)
        }
    }
}
