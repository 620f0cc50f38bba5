import BridgeProtocol
import Foundation
import Testing

@Suite struct RequestKindTests {
    /// A phone app is written against BRIDGE.md alone: every request kind the bridge decodes has a heading there.
    @Test func bridgeDocumentsEveryRequestKind() throws {
        let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("BRIDGE.md")
        let headings = try String(contentsOf: document, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("#### ") }
        for kind in RequestKind.allCases {
            #expect(headings.contains { $0.contains("`\(kind.rawValue) {") }, "BRIDGE.md has no heading for \(kind.rawValue)")
        }
    }

    @Test func everyKindDecodesAndAnUnknownOneIsRefused() throws {
        #expect(BridgeRequest.kinds == Set(RequestKind.allCases.map(\.rawValue)))
        #expect(throws: FrameDecodingError.self) { try ClientMessage.decode(Data(#"{"kind":"approveAll","id":"1"}"#.utf8)) }
    }
}
