import Testing

@testable import BridgeServer

/// The connection's flow as a value: waiting steps, queued messages, work in flight, the end (no sockets).
@Suite struct ConnectionFlowTests {
    typealias Flow = ConnectionFlow<String, String>

    /// Runs `body` on `flow` (mutating calls cannot sit inside `#expect`).
    static func step<T>(_ flow: inout Flow, _ body: (inout Flow) -> T) -> T { body(&flow) }

    @Test func messagesWaitInOrderWhileAStepIsUnderWay() {
        var flow = Flow(maxInFlight: 4)
        var trace: [String] = []
        func note<T>(_ value: T) { trace.append("\(value)") }
        note(flow.arrived("hello") ?? "-")  // handled now
        note(flow.wait())  // pause reads
        note(flow.wait())  // already paused
        note(flow.arrived("a") ?? "-")
        note(flow.arrived("b") ?? "-")
        note(flow.next() ?? "-")  // still waiting
        note(flow.resume())  // resume reads
        note(flow.next() ?? "-")
        note(flow.wait())  // handling a queued message may start another step
        note(flow.next() ?? "-")
        note(flow.resume())
        note(flow.next() ?? "-")
        note(flow.next() ?? "-")
        #expect(trace == ["hello", "true", "false", "-", "-", "-", "true", "a", "true", "-", "true", "b", "-"])
    }

    @Test func theSessionIsFinishedOnceWhenTheChannelIsGoneAndNothingIsInFlight() throws {
        var flow = Flow(maxInFlight: 2)
        let first = try #require(Self.step(&flow) { $0.reserve() })
        flow.started("request 1", key: first)
        let second = try #require(Self.step(&flow) { $0.reserve() })
        flow.started("request 2", key: second)
        let overLimit = flow.reserve()
        #expect(overLimit == nil)
        let (cancel, finish) = flow.channelEnded()
        #expect(cancel.sorted() == ["request 1", "request 2"] && !finish)
        let late = flow.arrived("late")
        let afterEnd = flow.reserve()
        #expect(late == nil && afterEnd == nil)
        let firstDone = flow.finished(first)
        let secondDone = flow.finished(second)
        #expect(!firstDone && secondDone)
        #expect(flow.phase == .finished)
        let again = flow.finishIfIdle()
        #expect(!again)  // exactly once
    }

    @Test func aStepUnderWayWhenTheChannelGoesDelaysTheFinish() {
        var flow = Flow(maxInFlight: 2)
        _ = flow.wait()
        _ = flow.arrived("queued")
        let ended = flow.channelEnded()
        #expect(!ended.finish)
        #expect(flow.phase == .ended(waiting: true))
        let resumed = flow.resume()
        let next = flow.next()
        let finished = flow.finishIfIdle()
        #expect(!resumed && next == nil && finished)  // nothing to read from; what waited was dropped
    }

    @Test func aProtocolErrorDropsWhatWaits() {
        var flow = Flow(maxInFlight: 2)
        _ = flow.wait()
        _ = flow.arrived("a")
        flow.dropQueued()
        _ = flow.resume()
        let next = flow.next()
        #expect(next == nil && flow.isOpen)
    }
}
