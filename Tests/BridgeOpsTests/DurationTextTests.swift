import BridgeOps
import Testing

@Suite struct DurationTextTests {
    @Test(arguments: [
        ("3s", Duration.seconds(3)),
        ("3", .seconds(3)),
        ("500ms", .milliseconds(500)),
        ("1.5s", .milliseconds(1500)),
        ("2m", .seconds(120)),
        (" 10S ", .seconds(10)),
        ("1h", .seconds(3600)),
        ("7d", .seconds(7 * 86400)),
        ("1.5m", .seconds(90)),
    ])
    func parses(text: String, expected: Duration) {
        #expect(DurationText.parse(text) == expected)
    }

    @Test(arguments: ["", "s", "-1s", "0", "abc", "3w", "1d2h", "1e3", "0.1ms", "3 s"])
    func rejects(text: String) {
        #expect(DurationText.parse(text) == nil)
    }
}
