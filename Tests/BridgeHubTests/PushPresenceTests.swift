import Testing

@testable import BridgeHub

@Suite struct PushPresenceTests {
    @Test func visibleSkipsHiddenWaitsAbsentNow() {
        var presence = PushPresence()
        #expect(presence.verdict(for: "dev-a") == .now)
        presence.opened(1, owner: "dev-a")
        #expect(presence.verdict(for: "dev-a") == .skip)
        presence.visibility(1, visible: false)
        #expect(presence.verdict(for: "dev-a") == .later)
        // A second tab of the same device on screen: nothing to push.
        presence.opened(2, owner: "dev-a")
        #expect(presence.verdict(for: "dev-a") == .skip)
        // A connection that stopped reading counts as away.
        #expect(presence.verdict(for: "dev-a", stalled: { $0 == 2 }) == .later)
        presence.closed(2)
        presence.closed(1)
        #expect(presence.verdict(for: "dev-a") == .now)
        // Another device's presence does not count.
        presence.opened(3, owner: "dev-b")
        #expect(presence.verdict(for: "dev-a") == .now)
        #expect(presence.anyVisible())
        #expect(!presence.anyVisible(stalled: { _ in true }))
    }

    @Test func aLookDuringTheDelayCounts() {
        var presence = PushPresence()
        presence.opened(1, owner: "dev-a")
        presence.visibility(1, visible: false)
        let before = presence.looks(of: "dev-a")
        presence.visibility(1, visible: false)
        #expect(presence.looks(of: "dev-a") == before)
        // On screen and hidden again: the verdict is `later` again, but the device saw it.
        presence.visibility(1, visible: true)
        presence.visibility(1, visible: false)
        #expect(presence.verdict(for: "dev-a") == .later)
        #expect(presence.looks(of: "dev-a") == before + 1)
        // Opening the app counts too.
        presence.opened(2, owner: "dev-a")
        #expect(presence.looks(of: "dev-a") == before + 2)
        #expect(presence.looks(of: "dev-b") == 0)
    }
}
