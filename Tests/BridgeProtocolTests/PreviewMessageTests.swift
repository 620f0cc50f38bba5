import BridgeProtocol
import Foundation
import Testing

/// `previews` and `preview` as a client reads them (issue 35).
@Suite struct PreviewMessageTests {
    @Test func answersRoundTripWithTheirWireNames() throws {
        let list = ServerMessage.response(
            id: "l", .previews(PreviewList(threadId: "t", servers: [PreviewServer(port: 5173, process: "node", http: true)])))
        let opened = ServerMessage.response(
            id: "o", .preview(PreviewOpened(threadId: "t", port: 5173, url: "https://h:8766/.codex-bridge/open?ticket=a.b", expiresAt: 2)))
        for message in [list, opened] { #expect(try ServerMessage.decode(message.encoded()) == message) }
        let text = String(decoding: try list.encoded(), as: UTF8.self)
        #expect(text.contains(#""kind":"previews""#) && text.contains(#""servers":[{"#) && text.contains(#""http":true"#))
        #expect(String(decoding: try opened.encoded(), as: UTF8.self).contains(#""kind":"preview""#))
    }
}
