import NIOCore

/// Pauses reading from the socket while a connection waits (a hello's token being checked, its session being
/// registered): the pipeline's `read()` stops here instead of reaching the channel, so the peer is pushed back
/// by TCP rather than buffered by the bridge (see ``ReadPause``). Only what one read already brought in still
/// arrives. Sits at the tail of the pipeline, above the connection, which pauses and resumes it on its event loop.
final class ReadGate: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = Any

    private var pause = ReadPause()
    private var context: ChannelHandlerContext?

    var isPaused: Bool { pause.isPaused }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func read(context: ChannelHandlerContext) {
        if pause.read() { context.read() }
    }

    /// Holds reads from now on.
    func pauseReading() {
        pause.pause()
    }

    /// Lets reads through again, issuing the one held meanwhile.
    func resumeReading() {
        if pause.resume() { context?.read() }
    }
}
