import Foundation
import Testing

@testable import BridgeProtocol

/// Issue 44, item 1: numbers from the network never trap on conversion. `intValue` (read by the attach
/// command from a bridge's frames, by the hub from Codex's) gave `Int(1e300)`, a crash; JSON's huge and
/// out-of-range numbers parse to a value that is then refused, not converted.
@Suite struct JSONValueRangeTests {
    @Test(arguments: [1e300, -1e300, 9.3e18, -9.3e18, .infinity, -.infinity, .nan, 0.5])
    func anIntegerOutOfRangeIsNil(value: Double) {
        #expect(JSONValue.number(value).intValue == nil)
    }

    @Test func integersInRangeStay() {
        #expect(JSONValue.number(42).intValue == 42 && JSONValue.number(-7).intValue == -7)
        #expect(JSONValue.number(9_007_199_254_740_992).intValue == 9_007_199_254_740_992)
    }

    @Test func hugeLiteralsParseWithoutATrap() throws {
        let parsed = try JSONValue(parsing: Data(#"{"a":1e400,"b":-1e400,"c":123456789012345678901234567890}"#.utf8))
        #expect(parsed["a"]?.intValue == nil && parsed["b"]?.intValue == nil && parsed["c"]?.intValue == nil)
        // Written back as JSON that parses (never `inf`).
        _ = try JSONValue(parsing: Data(parsed.jsonText.utf8))
    }
}
