import Testing

@testable import BridgeHub

/// A session's replays in turn (the value type alone, no sockets): the first holds the line, later ones wait in
/// order and each end hands the line to the next; sessions do not wait for one another.
@Suite struct ReplayLineTests {
    @Test func replaysOfOneSessionRunOneAfterAnotherInOrder() {
        var line = ReplayLine<String>()
        var began = [line.begin(1), line.begin(1)]
        line.wait(1, "second")
        began.append(line.begin(1))
        line.wait(1, "third")
        began.append(line.begin(2))  // another session's replay does not wait
        #expect(began == [true, false, false, true])
        let handed = [line.end(1), line.end(1), line.end(1)]
        #expect(handed == ["second", "third", nil])
        let again = line.begin(1)  // the line was free again
        let last = line.end(2)
        #expect(again && last == nil)
    }
}
