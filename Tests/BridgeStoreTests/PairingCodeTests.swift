import BridgeStore
import Foundation
import Testing

@Suite("PairingCode")
struct PairingCodeTests {
    @Test(arguments: [
        ("7K3QZ9M2XA", "7K3QZ9M2XA"),
        ("7k3qz-9m2xa", "7K3QZ9M2XA"),
        (" 7K3QZ 9M2XA ", "7K3QZ9M2XA"),
        ("OIL0123456", "0110123456"),
    ])
    func normalizes(input: String, expected: String) {
        #expect(PairingCode.normalize(input) == expected)
    }

    @Test(arguments: ["", "7K3QZ9M2X", "7K3QZ9M2XAB", "7K3QZ9M2XU", "7K3QZ9M2X!", String(repeating: "A", count: 43)])
    func rejectsWhatCannotBeACode(input: String) {
        #expect(PairingCode.normalize(input) == nil)
    }

    @Test func groupedReadsBack() {
        let code = PairingCode(code: "7K3QZ9M2XA", expiresAt: .now)
        #expect(code.grouped == "7K3QZ-9M2XA")
        #expect(PairingCode.normalize(code.grouped) == code.code)
    }
}
