import Testing

@testable import BridgeServer

@Suite struct OriginPolicyTests {
    @Test func ownOriginOnlyWhenAnOriginIsSent() {
        let plain = OriginPolicy(secure: false)
        #expect(plain.allows(origin: nil, authority: "192.168.1.20:9099"))
        #expect(plain.allows(origin: "http://192.168.1.20:9099", authority: "192.168.1.20:9099"))
        #expect(plain.allows(origin: "http://Box.Local:9099", authority: "box.local:9099"))
        #expect(plain.allows(origin: "http://[fd7a::1]:9099", authority: "[FD7A::1]:9099"))
        #expect(plain.allows(origin: "http://box", authority: "box:80"))
        #expect(!plain.allows(origin: "http://evil.test:9099", authority: "192.168.1.20:9099"))
        #expect(!plain.allows(origin: "http://192.168.1.20:9100", authority: "192.168.1.20:9099"))
        #expect(!plain.allows(origin: "https://192.168.1.20:9099", authority: "192.168.1.20:9099"))
        #expect(!plain.allows(origin: "null", authority: "192.168.1.20:9099"))
        // Not a web page's origin: a native WebSocket library (swift-websocket sends ws://HOST).
        #expect(plain.allows(origin: "ws://192.168.1.20", authority: "192.168.1.20:9099"))
        #expect(!plain.allows(origin: "http://192.168.1.20:9099", authority: nil))
        #expect(!plain.allows(origin: "http://localhost:9099", authority: "127.0.0.1:9099"))
        let tls = OriginPolicy(secure: true)
        #expect(tls.allows(origin: "https://box.tail1.ts.net", authority: "box.tail1.ts.net:443"))
        #expect(!tls.allows(origin: "http://box.tail1.ts.net:443", authority: "box.tail1.ts.net:443"))
    }
}
