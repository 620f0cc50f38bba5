import Testing

@testable import BridgePreview

@Suite struct ProxyHeadersTests {
    let rules = ProxyHeaders(port: 5173, previewOrigin: "https://ws.local:8766")

    @Test func theDevServerNeverSeesTheBridgesCredentials() {
        let out = rules.request([
            ("Host", "ws.local:8766"), ("Authorization", "Bearer secret"), ("Proxy-Authorization", "Basic x"),
            ("Cookie", "codex_bridge_preview=a.b; theme=dark"), ("Connection", "keep-alive, X-Private"), ("X-Private", "1"),
            ("Keep-Alive", "timeout=5"), ("Origin", "https://ws.local:8766"), ("Referer", "https://ws.local:8766/page?q=1"),
            ("Accept", "text/html"),
        ])
        #expect(out.map(\.name) == ["Host", "Cookie", "Origin", "Referer", "Accept"])
        #expect(
            out.map(\.value) == ["localhost:5173", "theme=dark", "http://localhost:5173", "http://localhost:5173/page?q=1", "text/html"])
        let onlyOurs = rules.request([("Cookie", "codex_bridge_preview=a.b")])
        #expect(onlyOurs.map(\.name) == ["Host"])
    }

    @Test func anUpgradeKeepsItsUpgradeFields() {
        let out = rules.request(
            [("Connection", "Upgrade"), ("Upgrade", "websocket"), ("Sec-WebSocket-Key", "k"), ("Authorization", "Bearer x")],
            keepUpgrade: true)
        #expect(out.map(\.name) == ["Host", "Sec-WebSocket-Key", "Connection", "Upgrade"])
        #expect(out.last?.value == "websocket")
    }

    @Test func redirectsToTheDevServerLandOnThePreviewOrigin() {
        #expect(rules.location("http://localhost:5173/next?a=1") == "https://ws.local:8766/next?a=1")
        #expect(rules.location("http://127.0.0.1:5173") == "https://ws.local:8766")
        #expect(rules.location("http://[::1]:5173/x") == "https://ws.local:8766/x")
        #expect(rules.location("/relative") == "/relative")
        #expect(rules.location("http://localhost:51730/x") == "http://localhost:51730/x")
        #expect(rules.location("https://example.com/") == "https://example.com/")
        let out = rules.response([
            ("Location", "http://localhost:5173/b"), ("Set-Cookie", "codex_bridge_preview=forged"), ("Set-Cookie", "theme=dark"),
            ("Transfer-Encoding", "chunked"), ("Content-Type", "text/html"),
        ])
        #expect(out.map(\.name) == ["Location", "Set-Cookie", "Content-Type"])
        #expect(out.map(\.value) == ["https://ws.local:8766/b", "theme=dark", "text/html"])
    }
}
