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
        let onlyOurs = rules.request([("Cookie", "codex_bridge_preview=a.b; codex_bridge_preview_9102=c.d")])
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

    /// Issue 44 item 3: no service worker's scope, no clearing of the host's cookies, from a dev server.
    @Test func aDevServerCannotWidenAWorkersScopeOrClearTheHostsCookies() {
        let out = rules.response([
            ("Service-Worker-Allowed", "/"), ("Clear-Site-Data", "\"cookies\""), ("Set-Cookie", "codex_bridge_preview_9102 =x"),
            ("Set-Cookie", "=codex_bridge_preview_9103=x"), ("Content-Type", "text/javascript"),
        ])
        #expect(out.map(\.name) == ["Content-Type"])
    }

    /// Issue 44 item 3: a request another origin's page makes (another preview's, any site's) is refused, and so is
    /// a service worker's script; the preview's own pages and a navigation to it are not.
    @Test func anotherOriginsRequestsAndServiceWorkersAreRefused() {
        let own = "http://192.168.1.5:9102"
        func check(_ fields: [(String, String)]) -> PreviewRequestCheck.Refusal? {
            PreviewRequestCheck.refusal(fields.map { (name: $0.0, value: $0.1) }, ownOrigin: own)
        }
        #expect(check([]) == nil)
        #expect(check([("Origin", "http://192.168.1.5:9102"), ("Sec-Fetch-Site", "same-origin"), ("Sec-Fetch-Mode", "cors")]) == nil)
        #expect(check([("Sec-Fetch-Site", "same-site"), ("Sec-Fetch-Mode", "navigate"), ("Sec-Fetch-Dest", "document")]) == nil)
        #expect(check([("Sec-Fetch-Site", "none"), ("Sec-Fetch-Mode", "navigate")]) == nil)
        #expect(check([("origin", "HTTP://192.168.1.5:9102")]) == nil)
        for fields in [
            [("Origin", "http://192.168.1.5:9101")], [("Origin", "null")],
            [("Sec-Fetch-Site", "same-site"), ("Sec-Fetch-Mode", "cors")],
            [("Sec-Fetch-Site", "cross-site"), ("Sec-Fetch-Mode", "no-cors"), ("Sec-Fetch-Dest", "script")],
            [("Sec-Fetch-Site", "same-site"), ("Sec-Fetch-Mode", "navigate"), ("Sec-Fetch-Dest", "iframe")],
            [("Sec-Fetch-Site", "same-site"), ("Sec-Fetch-Mode", "websocket")],
        ] {
            #expect(check(fields) == .otherOrigin, "\(fields)")
        }
        #expect(check([("Service-Worker", "script")]) == .serviceWorker)
        #expect(check([("Sec-Fetch-Dest", "serviceworker"), ("Sec-Fetch-Site", "same-origin")]) == .serviceWorker)
    }

    @Test func theRedirectToAPreviewsOriginKeepsOnlyAHost() {
        #expect(PreviewHost.hostname(fromAuthority: "192.168.1.5:9100") == "192.168.1.5")
        #expect(PreviewHost.hostname(fromAuthority: "ana-desk.tail1.ts.net:9100") == "ana-desk.tail1.ts.net")
        #expect(PreviewHost.hostname(fromAuthority: "[fd7a:115c::5]:9100") == "[fd7a:115c::5]")
        #expect(PreviewHost.hostname(fromAuthority: "localhost") == "localhost")
        for forged in ["evil.com/x:1", "a@b:1", "[::1", "[x]:1", "", ":9100", "a b:1", nil] {
            #expect(PreviewHost.hostname(fromAuthority: forged) == nil, "\(String(describing: forged))")
        }
    }
}
