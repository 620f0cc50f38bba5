import NIOCore
import NIOEmbedded
import Testing

@testable import BridgeServer

/// Pausing reads by holding `read()`: the rules alone, then on a pipeline.
@Suite struct ReadGateTests {
    @Test func readsPassUntilPausedThenOneHeldReadIsIssuedOnResume() {
        var pause = ReadPause()
        #expect(pause.read())
        pause.pause()
        #expect(pause.state == .paused(readHeld: false))
        #expect(!pause.read())
        #expect(!pause.read())  // held once, however often asked
        #expect(pause.state == .paused(readHeld: true))
        #expect(pause.resume())
        #expect(pause.state == .reading)
        #expect(pause.read())
    }

    @Test func aResumeWithoutAHeldReadIssuesNone() {
        var pause = ReadPause()
        #expect(!pause.resume())
        pause.pause()
        pause.pause()
        #expect(!pause.resume())
        #expect(!pause.isPaused)
    }

    /// Counts the reads that reach the head of the pipeline. Unchecked: only touched on its channel's event loop.
    final class ReadCounter: ChannelOutboundHandler, @unchecked Sendable {
        typealias OutboundIn = Any
        var reads = 0
        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    @Test func aPausedGateKeepsReadsFromTheChannel() throws {
        let counter = ReadCounter()
        let gate = ReadGate()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([counter, gate])
        channel.read()
        #expect(counter.reads == 1)
        gate.pauseReading()
        channel.read()
        channel.read()
        #expect(counter.reads == 1)
        #expect(gate.isPaused)
        gate.resumeReading()
        #expect(counter.reads == 2)
        gate.resumeReading()
        #expect(counter.reads == 2)
        channel.read()
        #expect(counter.reads == 3)
        _ = try channel.finish()
    }
}
