import BridgeProtocol
import Testing

@testable import BridgeClient

@Suite struct BridgeEndpointTests {
    @Test(arguments: [
        ("box:9100", "ws://box:9100/"),
        ("box", "ws://box:9099/"),
        ("  192.168.1.20:9099 ", "ws://192.168.1.20:9099/"),
        ("ws://box:9100", "ws://box:9100/"),
        ("WSS://Box:9100/path?q=1", "wss://Box:9100/path?q=1"),
        ("wss://box", "wss://box:9099/"),
        ("http://box:9100/", "ws://box:9100/"),
        ("https://box.example.com", "wss://box.example.com:443/"),
        ("http://box", "ws://box:80/"),
        ("[fd7a:115c:a1e0::1]:9100", "ws://[fd7a:115c:a1e0::1]:9100/"),
        ("fd7a:115c:a1e0::1", "ws://[fd7a:115c:a1e0::1]:9099/"),
        ("ws://[::1]:9100/", "ws://[::1]:9100/"),
        ("fe80::1%eth0", "ws://[fe80::1%25eth0]:9099/"),
        ("ws://user@box:9100", "ws://box:9100/"),
    ])
    func normalizes(input: String, expected: String) throws {
        #expect(try BridgeEndpoint(parsing: input).url == expected)
    }

    @Test(arguments: ["", "ftp://box", "box:0", "box:70000", "box:abc", "[::1", "[::1]x", "ws://:9099"])
    func rejects(input: String) {
        #expect(throws: BridgeClientError.self) { try BridgeEndpoint(parsing: input) }
    }

    @Test func bracketsAndIPDetection() throws {
        let v6 = BridgeEndpoint(host: "[::1]", port: 1)
        #expect(v6.host == "::1" && v6.urlHost == "[::1]" && v6.hostIsIPAddress)
        #expect(BridgeEndpoint(host: "10.0.0.1").hostIsIPAddress)
        #expect(!BridgeEndpoint(host: "box.tail1234.ts.net").hostIsIPAddress)
    }

    @Test func pairingURLCandidates() throws {
        let url =
            "codex-bridge://pair?v=1&host=192.168.1.20&port=9100&code=7K3QZ9M2XA&addrs=192.168.1.20,100.101.102.103,fd7a:115c:a1e0::1&id=SRV&name=W"
        let target = try BridgeTarget(parsing: url)
        #expect(
            target.candidates.map(\.url) == [
                "ws://192.168.1.20:9100/", "ws://100.101.102.103:9100/", "ws://[fd7a:115c:a1e0::1]:9100/",
            ])
        #expect(target.pin == nil && target.serverId == "SRV")
        let fp = String(repeating: "ab", count: 32)
        let tls = try BridgeTarget(parsing: "codex-bridge://pair?v=1&host=h&port=1&code=C&id=S&name=N&fp=\(fp)")
        #expect(tls.candidates.map(\.url) == ["wss://h:1/"])
        #expect(tls.pin?.fingerprint == fp)
    }

    @Test func plainAddressTarget() throws {
        let target = try BridgeTarget(parsing: "https://[::1]:9443")
        #expect(target.candidates.map(\.url) == ["wss://[::1]:9443/"])
        #expect(throws: BridgeClientError.self) { try BridgeTarget(parsing: "codex-bridge://pair?v=9&host=h&port=1&code=C") }
    }
}
