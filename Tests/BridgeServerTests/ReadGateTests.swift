import NIOCore
import NIOEmbedded
import Testing

@testable import BridgeServer

/// Pausing reads by holding `read()`: the rules alone, then on a pipeline.
@Suite struct ReadGateTests {
    @Test func readsPassUntilPausedThenOneHeldReadIsIssuedOnResume() {
        var pause = ReadPause()
        let first = pause.read()
        #expect(first)
        pause.pause()
        #expect(pause.state == .paused(readHeld: false))
        let (second, third) = (pause.read(), pause.read())
        #expect(!second && !third)  // held once, however often asked
        #expect(pause.state == .paused(readHeld: true))
        let issue = pause.resume()
        #expect(issue)
        #expect(pause.state == .reading)
        let after = pause.read()
        #expect(after)
    }

    @Test func aResumeWithoutAHeldReadIssuesNone() {
        var pause = ReadPause()
        let resumedWhileReading = pause.resume()
        #expect(!resumedWhileReading)
        pause.pause()
        pause.pause()
        let resumed = pause.resume()
        #expect(!resumed)
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
