import Testing

@testable import BridgeServer

@Suite struct FanOutTests {
    @Test func framesGoToNamedAndWildcardSubscribersOnce() {
        var fanOut = FanOut(maxHeldFrames: 8)
        let r1 = fanOut.subscribe(1, to: "t1")
        #expect(r1)
        let r2 = fanOut.subscribe(2, to: "*")
        #expect(r2)
        let r3 = fanOut.subscribe(2, to: "t1")
        #expect(r3 == false)  // already covered through "*"
        let r4 = fanOut.subscribe(3, to: "t2")
        #expect(r4)
        let r5 = fanOut.publish("a", threadId: "t1")
        #expect(r5 == [.send("a", to: 1), .send("a", to: 2)])
        let r6 = fanOut.publish("b", threadId: "t2")
        #expect(r6 == [.send("b", to: 2), .send("b", to: 3)])
        let r7 = fanOut.publish("c", threadId: "t9")
        #expect(r7 == [.send("c", to: 2)])
        fanOut.unsubscribe(2, from: "*")
        #expect(fanOut.covers(2, "t1"))  // its named subscription stays
        let r8 = fanOut.publish("d", threadId: "t2")
        #expect(r8 == [.send("d", to: 3)])
        #expect(fanOut.subscriptionCount(2) == 1)
    }

    @Test func heldFramesWaitForTheLastReleaseInOrder() {
        var fanOut = FanOut(maxHeldFrames: 8)
        fanOut.subscribe(1, to: "t")
        fanOut.hold(1)
        fanOut.hold(1)  // nested: the ack's hold and the replay's
        let r9 = fanOut.publish("a", threadId: "t")
        #expect(r9.isEmpty)
        let r10 = fanOut.deliver("b", to: 1)
        #expect(r10.isEmpty)
        let r11 = fanOut.release(1)
        #expect(r11.isEmpty)
        let r12 = fanOut.publish("c", threadId: "t")
        #expect(r12.isEmpty)
        let r13 = fanOut.release(1)
        #expect(r13 == [.send("a", to: 1), .send("b", to: 1), .send("c", to: 1)])
        let r14 = fanOut.publish("d", threadId: "t")
        #expect(r14 == [.send("d", to: 1)])
        let r15 = fanOut.release(1)
        #expect(r15.isEmpty)  // an extra release changes nothing
    }

    @Test func aSessionHeldTooLongIsClosedAsASlowReader() {
        var fanOut = FanOut(maxHeldFrames: 2)
        fanOut.subscribe(1, to: "t")
        fanOut.subscribe(2, to: "t")
        fanOut.hold(1)
        _ = fanOut.publish("a", threadId: "t")
        _ = fanOut.publish("b", threadId: "t")
        let r16 = fanOut.publish("c", threadId: "t")
        #expect(r16 == [.closeSlowReader(1), .send("c", to: 2)])
        let r17 = fanOut.release(1)
        #expect(r17.isEmpty)  // its hold and frames are gone
    }

    @Test func removingASessionForgetsEverything() {
        var fanOut = FanOut(maxHeldFrames: 8)
        fanOut.subscribe(1, to: "t")
        fanOut.subscribe(1, to: "*")
        fanOut.hold(1)
        fanOut.remove(1)
        #expect(!fanOut.covers(1, "t") && fanOut.routes.isEmpty)
        let r18 = fanOut.publish("a", threadId: "t")
        #expect(r18.isEmpty)
        let r19 = fanOut.deliver("b", to: 1)
        #expect(r19 == [.send("b", to: 1)])  // unknown: the hub finds no session
    }
}
