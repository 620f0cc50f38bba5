import BridgeProtocol
import Foundation
import Testing

@Suite("PairingURL")
struct PairingURLTests {
    private let sample = PairingURL(
        host: "192.168.1.20", port: 8765, credential: .pairingCode("7K3QZ9M2XA"),
        addresses: ["192.168.1.20", "100.101.102.103", "box.tail1234.ts.net", "fd7a:115c:a1e0::1", "2001:db8::5"],
        serverId: "q2Xv_-9aZ0", serverName: "Ana’s Workstation (büro) & co")

    @Test func roundTrip() throws {
        let parsed = try PairingURL(parsing: sample.string)
        #expect(parsed == sample)
    }

    @Test func exactText() {
        #expect(
            sample.string
                == "codex-bridge://pair?v=1&host=192.168.1.20&port=8765&code=7K3QZ9M2XA"
                + "&addrs=192.168.1.20,100.101.102.103,box.tail1234.ts.net,fd7a:115c:a1e0::1,2001:db8::5"
                + "&id=q2Xv_-9aZ0&name=Ana%E2%80%99s%20Workstation%20%28b%C3%BCro%29%20%26%20co")
    }

    @Test(arguments: [
        "plain", "with space", "ünïcödé 日本", "a&b=c", "50% + more", "comma,name", "hash#tag", "emoji 📱", "semi;colon?q",
    ])
    func awkwardValuesRoundTrip(value: String) throws {
        let url = PairingURL(
            host: "fd7a:115c:a1e0::1", port: 1, credential: .staticToken(value), addresses: [value, "::1"],
            serverId: value, serverName: value, fingerprint: value)
        let text = url.string
        #expect(!text.contains(" "))
        #expect(URL(string: text) != nil)
        #expect(try PairingURL(parsing: text) == url)
    }

    @Test func foundationReadsTheSameValues() throws {
        let components = try #require(URLComponents(string: sample.string))
        #expect(components.scheme == "codex-bridge")
        #expect(components.host == "pair")
        let items = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(items["name"] == sample.serverName)
        #expect(items["host"] == "192.168.1.20")
        #expect(items["addrs"]?.split(separator: ",").map(String.init) == sample.addresses)
    }

    @Test func optionalFieldsAndUnknownParameters() throws {
        let parsed = try PairingURL(parsing: "codex-bridge://pair?v=1&host=h&port=9&code=C&future=x&fp=AB%3ACD")
        #expect(parsed.addresses == ["h"])
        #expect(parsed.fingerprint == "AB:CD")
        #expect(parsed.credential == .pairingCode("C"))
        #expect(parsed.serverName == "")
    }

    @Test(arguments: [
        ("https://pair?v=1&host=h&port=9&code=C", PairingURLError.Code.notAPairingURL),
        ("codex-bridge://pair?v=2&host=h&port=9&code=C", .unsupportedVersion),
        ("codex-bridge://pair?v=1&port=9&code=C", .missing),
        ("codex-bridge://pair?v=1&host=h&port=9", .missing),
        ("codex-bridge://pair?v=1&host=h&port=70000&code=C", .invalid),
        ("codex-bridge://pair?v=1&host=h&port=9&code=C&code=D", .invalid),
        ("codex-bridge://pair?v=1&host=h%ZZ&port=9&code=C", .invalid),
    ])
    func rejects(text: String, code: PairingURLError.Code) {
        #expect {
            try PairingURL(parsing: text)
        } throws: { error in
            (error as? PairingURLError)?.code == code
        }
    }
}
