import Testing

@testable import BridgeHub

@Suite struct FanOutTests {
    @Test func framesGoToNamedAndWildcardSubscribersOnce() {
        var fanOut = FanOut(maxHeldFrames: 8)
        let newOnT1 = fanOut.subscribe(1, to: "t1")
        #expect(newOnT1)
        let newOnAll = fanOut.subscribe(2, to: "*")
        #expect(newOnAll)
        let newOnT1Again = fanOut.subscribe(2, to: "t1")
        #expect(newOnT1Again == false)  // already covered through "*"
        let newOnT2 = fanOut.subscribe(3, to: "t2")
        #expect(newOnT2)
        let toT1 = fanOut.publish("a", threadId: "t1")
        #expect(toT1 == [.send("a", to: 1), .send("a", to: 2)])
        let toT2 = fanOut.publish("b", threadId: "t2")
        #expect(toT2 == [.send("b", to: 2), .send("b", to: 3)])
        let toT9 = fanOut.publish("c", threadId: "t9")
        #expect(toT9 == [.send("c", to: 2)])
        fanOut.unsubscribe(2, from: "*")
        #expect(fanOut.covers(2, "t1"))  // its named subscription stays
        let toT2After = fanOut.publish("d", threadId: "t2")
        #expect(toT2After == [.send("d", to: 3)])
        #expect(fanOut.subscriptionCount(2) == 1)
    }

    @Test func relayedFramesReachFleetSessionsOnly() {
        var fanOut = FanOut(maxHeldFrames: 8)
        fanOut.subscribe(1, to: "*")  // a phone that did not ask for the fleet
        fanOut.subscribe(2, to: "*")
        fanOut.joinFleet(2)
        fanOut.subscribe(3, to: "b-thread")
        fanOut.joinFleet(3)
        var relayed: [FanOut.Action] = []
        fanOut.publish("r", threadId: "b-thread", relayed: true, into: &relayed)
        #expect(relayed == [.send("r", to: 2), .send("r", to: 3)])
        var own: [FanOut.Action] = []
        fanOut.publish("h", threadId: "a-thread", into: &own)
        #expect(own == [.send("h", to: 1), .send("h", to: 2)])
        fanOut.remove(2)
        #expect(!fanOut.isFleet(2))
    }

    @Test func heldFramesWaitForTheLastReleaseInOrder() {
        var fanOut = FanOut(maxHeldFrames: 8)
        fanOut.subscribe(1, to: "t")
        fanOut.hold(1)
        fanOut.hold(1)  // nested: the ack's hold and the replay's
        let whileHeld = fanOut.publish("a", threadId: "t")
        #expect(whileHeld.isEmpty)
        let directWhileHeld = fanOut.deliver("b", to: 1)
        #expect(directWhileHeld.isEmpty)
        let firstRelease = fanOut.release(1)
        #expect(firstRelease.isEmpty)
        let stillHeld = fanOut.publish("c", threadId: "t")
        #expect(stillHeld.isEmpty)
        let lastRelease = fanOut.release(1)
        #expect(lastRelease == [.send("a", to: 1), .send("b", to: 1), .send("c", to: 1)])
        let afterRelease = fanOut.publish("d", threadId: "t")
        #expect(afterRelease == [.send("d", to: 1)])
        let extraRelease = fanOut.release(1)
        #expect(extraRelease.isEmpty)  // an extra release changes nothing
    }

    @Test func aSessionHeldTooLongIsClosedAsASlowReader() {
        var fanOut = FanOut(maxHeldFrames: 2)
        fanOut.subscribe(1, to: "t")
        fanOut.subscribe(2, to: "t")
        fanOut.hold(1)
        _ = fanOut.publish("a", threadId: "t")
        _ = fanOut.publish("b", threadId: "t")
        let overflow = fanOut.publish("c", threadId: "t")
        #expect(overflow == [.closeSlowReader(1), .send("c", to: 2)])
        let releaseAfterClose = fanOut.release(1)
        #expect(releaseAfterClose.isEmpty)  // its hold and frames are gone
    }

    @Test func removingASessionForgetsEverything() {
        var fanOut = FanOut(maxHeldFrames: 8)
        fanOut.subscribe(1, to: "t")
        fanOut.subscribe(1, to: "*")
        fanOut.hold(1)
        fanOut.remove(1)
        #expect(!fanOut.covers(1, "t") && fanOut.routes.isEmpty)
        let afterRemove = fanOut.publish("a", threadId: "t")
        #expect(afterRemove.isEmpty)
        let toUnknown = fanOut.deliver("b", to: 1)
        #expect(toUnknown == [.send("b", to: 1)])  // unknown: the hub finds no session
    }

    /// Issue 44: frames relayed from a linked machine may be megabytes each: held ones are bounded in bytes too.
    @Test func aSessionHoldingTooManyBytesIsClosedAsASlowReader() {
        var fanOut = FanOut(maxHeldFrames: 100, maxHeldBytes: 10)
        fanOut.subscribe(1, to: "t")
        fanOut.hold(1)
        _ = fanOut.publish("123456", threadId: "t")
        let overflow = fanOut.publish("12345", threadId: "t")
        #expect(overflow == [.closeSlowReader(1)])
        var alone = FanOut(maxHeldFrames: 100, maxHeldBytes: 10)
        alone.subscribe(1, to: "t")
        alone.hold(1)
        let large = alone.publish(String(repeating: "x", count: 50), threadId: "t")
        #expect(large.isEmpty, "one frame larger than the limit is held when nothing else is")
    }
}
