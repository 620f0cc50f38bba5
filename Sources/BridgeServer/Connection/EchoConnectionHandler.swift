import NIOCore

/// `codex-bridge-echo`'s connection (``BridgeServerConfiguration/echoMode``): every message goes back as it came,
/// over the same ``WebSocketEndpoint`` as a bridge connection (close handshake, pings, UTF-8, size limits): the
/// stack Autobahn|Testsuite runs against, and the bench's "same stack without the hub". No hello, no session.
final class EchoConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketMessage

    private let id: UInt64
    private let socket: WebSocketEndpoint
    private let registry: ConnectionRegistry

    init(id: UInt64, socket: WebSocketEndpoint, registry: ConnectionRegistry) {
        self.id = id
        self.socket = socket
        self.registry = registry
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .text(let text): socket.send(text: text)
        case .binary(let data): socket.send(binary: data)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        registry.unregister(id)
        context.fireChannelInactive()
    }

    /// Puts an echo connection on an upgraded channel (see ``WebSocketEndpoint/install(on:environment:remoteAddress:makeHandler:)``).
    static func install(on channel: any Channel, environment: ConnectionEnvironment, setup: ConnectionSetup) throws {
        try WebSocketEndpoint.install(on: channel, environment: environment, remoteAddress: setup.remoteAddress) { id, socket, _ in
            (EchoConnectionHandler(id: id, socket: socket, registry: environment.registry), { socket.close(code: $0, reason: $1) })
        }
    }
}
