import NIOCore

/// The first handler of a connection to a TLS port: waits for the peer's first byte and decides by it whether
/// the connection speaks TLS (a handshake record starts with 0x16, which no HTTP method does) or plain HTTP.
/// For TLS it puts the handler `decide` returns (the TLS server handler) in its own place; either way it then
/// leaves the pipeline and passes the bytes on. A peer that sends nothing is closed by the request-head timeout
/// of the handler after it.
final class TransportSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// What a connection speaks.
    enum Transport: Sendable, Equatable {
        case undecided, tls, plaintext
    }

    /// The first byte of a TLS handshake record (content type 22).
    static let handshakeRecord: UInt8 = 0x16

    private let decide: (Transport) throws -> (any ChannelHandler)?
    private var decided = false

    /// - Parameter decide: called once, on the event loop, with `.tls` or `.plaintext`; returns the handler to
    ///   insert in the sniffer's place (nil: none).
    init(decide: @escaping (Transport) throws -> (any ChannelHandler)?) {
        self.decide = decide
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        guard !decided, let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else {
            context.fireChannelRead(data)
            return
        }
        decided = true
        do {
            if let handler = try decide(first == Self.handshakeRecord ? .tls : .plaintext) {
                try context.pipeline.syncOperations.addHandler(handler, position: .after(self))
            }
        } catch {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
