import NIOCore
import Testing

@testable import BridgeLive

@Suite struct LiveChannelStateTests {
    /// Frames of 10 bytes; held above 40, free again at 20; a paused stream floods above 160.
    static let limits = LiveLimits(maxFrame: 16, highWater: 40, lowWater: 20)

    /// Runs a mutating step whose Bool answer is checked (`#expect` cannot take a mutating call).
    static func did(_ state: inout LiveChannelState<Int>, _ step: (inout LiveChannelState<Int>) -> Bool) -> Bool {
        step(&state)
    }

    static func data(_ id: UInt32, _ count: Int) -> LiveFrame {
        LiveFrame(.data, streamId: id, payload: ByteBuffer(repeating: 1, count: count))
    }

    @Test func streamIdsStartAtOneAndAreNeverReused() {
        var state = LiveChannelState<Int>(limits: Self.limits)
        #expect(state.open() == 1)
        #expect(state.open() == 2)
        _ = state.end(1)
        #expect(state.open() == 3)
        _ = state.close()
        #expect(state.open() == nil)
    }

    @Test func producersWaitAboveTheHighMarkUntilTheLowOne() {
        var state = LiveChannelState<Int>(limits: Self.limits)
        let id = state.open()!
        for _ in 0..<5 { #expect(state.send(id, bytes: 10) == .send) }  // 50 > 40: held
        #expect(state.held)
        #expect(state.send(id, bytes: 10) == .wait)
        #expect(Self.did(&state) { $0.park(id, token: 1, waiter: 1) })
        #expect(state.taken(20).isEmpty)  // 30: still above the low mark
        #expect(state.send(id, bytes: 10) == .wait)
        #expect(state.taken(10) == [1])  // 20: free
        #expect(!state.held)
        #expect(state.send(id, bytes: 10) == .send)
        #expect(state.peakQueued == 50)
    }

    @Test func aProducerNeedNotParkWhenRoomCameMeanwhile() {
        var state = LiveChannelState<Int>(limits: Self.limits)
        let id = state.open()!
        for _ in 0..<5 { _ = state.send(id, bytes: 10) }
        #expect(state.send(id, bytes: 10) == .wait)
        _ = state.taken(50)
        #expect(!Self.did(&state) { $0.park(id, token: 1, waiter: 1) })
    }

    @Test func theClientPausesAndResumesOneStream() {
        var state = LiveChannelState<Int>(limits: Self.limits)
        let paused = state.open()!
        let other = state.open()!
        #expect(state.received(LiveFrame(.pause, streamId: paused)).outcome == .accepted)
        #expect(state.send(paused, bytes: 10) == .wait)
        #expect(Self.did(&state) { $0.park(paused, token: 1, waiter: 1) })
        #expect(state.send(other, bytes: 10) == .send)
        #expect(state.received(LiveFrame(.resume, streamId: paused)).woken == [1])
        #expect(state.send(paused, bytes: 10) == .send)
    }

    @Test func endingWakesProducersAndTheReaderWhoThenSeeItEnded() {
        var state = LiveChannelState<Int>(limits: Self.limits)
        let id = state.open()!
        #expect(state.next(id).isWait)
        #expect(Self.did(&state) { $0.parkConsumer(id, token: 1, waiter: 1) })
        let (wasOpen, woken) = state.end(id)
        #expect(wasOpen)
        #expect(woken == [1])
        #expect(state.send(id, bytes: 10) == .ended)
        #expect(state.next(id).isFinished)
        #expect(state.end(id).wasOpen == false)
    }

    @Test func framesOnStreamsNeverGivenAreUnknownOnEndedOnesDropped() {
        var state = LiveChannelState<Int>(limits: Self.limits)
        let id = state.open()!
        #expect(state.received(Self.data(0, 1)).outcome == .unknownStream(0))
        #expect(state.received(Self.data(id + 1, 1)).outcome == .unknownStream(id + 1))
        #expect(state.received(LiveFrame(.pause, streamId: 99)).outcome == .unknownStream(99))
        _ = state.end(id)
        #expect(state.received(Self.data(id, 1)).outcome == .dropped)
    }

    @Test func aSlowReaderPausesTheClientAboveTheHighMarkAndResumesItAtTheLowOne() {
        var state = LiveChannelState<Int>(limits: Self.limits)
        let id = state.open()!
        for _ in 0..<4 { #expect(state.received(Self.data(id, 10)).reply == nil) }  // 40: not above
        let receipt = state.received(Self.data(id, 10))
        #expect(receipt.reply == LiveFrame(.pause, streamId: id))
        #expect(state.received(Self.data(id, 10)).reply == nil)  // paused once
        var resumes: [LiveFrame] = []
        for _ in 0..<6 {
            guard case .bytes(let bytes, let reply) = state.next(id) else {
                Issue.record("bytes expected")
                return
            }
            #expect(bytes.readableBytes == 10)
            if let reply { resumes.append(reply) }
        }
        #expect(resumes == [LiveFrame(.resume, streamId: id)])
        #expect(state.next(id).isWait)
    }

    @Test func aReaderParkedIsWokenByData() {
        var state = LiveChannelState<Int>(limits: Self.limits)
        let id = state.open()!
        #expect(Self.did(&state) { $0.parkConsumer(id, token: 1, waiter: 7) })
        #expect(state.received(Self.data(id, 3)).woken == [7])
    }

    @Test func aClientThatKeepsSendingIntoAPausedStreamFloodsIt() {
        var state = LiveChannelState<Int>(limits: Self.limits)
        let id = state.open()!
        var outcomes: [LiveChannelState<Int>.Outcome] = []
        for _ in 0..<17 { outcomes.append(state.received(Self.data(id, 10)).outcome) }
        #expect(outcomes.dropLast() == Array(repeating: .accepted, count: 16))
        #expect(outcomes.last == .flooded)
    }

    @Test func whatTheClientSentBeforeItsEndIsStillRead() {
        var state = LiveChannelState<Int>(limits: Self.limits)
        let id = state.open()!
        _ = state.received(Self.data(id, 4))
        _ = state.received(LiveFrame(.end, streamId: id))
        #expect(state.send(id, bytes: 1) == .ended)
        guard case .bytes(let bytes, nil) = state.next(id) else {
            Issue.record("the bytes sent before the end")
            return
        }
        #expect(bytes.readableBytes == 4)
        #expect(state.next(id).isFinished)
        #expect(state.end(id).wasOpen == false)  // no end frame back: the client ended it
    }

    @Test func closingWakesEveryone() {
        var state = LiveChannelState<Int>(limits: Self.limits)
        let a = state.open()!
        let b = state.open()!
        for _ in 0..<5 { _ = state.send(a, bytes: 10) }
        #expect(Self.did(&state) { $0.park(a, token: 1, waiter: 1) })
        #expect(Self.did(&state) { $0.parkConsumer(b, token: 2, waiter: 2) })
        #expect(Set(state.close()) == [1, 2])
        #expect(state.send(b, bytes: 1) == .ended)
        #expect(state.next(b).isFinished)
    }
}

extension LiveChannelState.Next {
    var isWait: Bool {
        if case .wait = self { return true }
        return false
    }

    var isFinished: Bool {
        if case .finished = self { return true }
        return false
    }
}
