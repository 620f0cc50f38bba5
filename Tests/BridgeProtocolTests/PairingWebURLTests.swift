import Foundation
import Testing

@testable import BridgeProtocol

@Suite struct PairingWebURLTests {
    @Test func webFormPutsPairingDataInTheFragment() throws {
        let url = PairingURL(
            host: "192.168.1.20", port: 9099, credential: .pairingCode("7K3QZ9M2XA"), addresses: ["192.168.1.20", "100.1.2.3"],
            serverId: "srv-1", serverName: "My Box")
        #expect(url.webString == "http://192.168.1.20:9099/#pair=v1&code=7K3QZ9M2XA&id=srv-1&name=My%20Box")
        let components = try #require(URLComponents(string: url.webString))
        #expect(components.query == nil)
        #expect(components.path == "/")
    }

    @Test func tlsAndIPv6() {
        let url = PairingURL(
            host: "fd7a::1", port: 443, credential: .pairingCode("ABCDEFGHJK"), addresses: ["fd7a::1"], serverId: "s", serverName: "n",
            fingerprint: String(repeating: "ab", count: 32))
        #expect(url.webString.hasPrefix("https://[fd7a::1]:443/#pair=v1&code=ABCDEFGHJK&id=s&name=n&fp=abab"))
    }

    /// Issue 31: the trust page's URL carries nothing; the credential goes only in the https one.
    @Test func withTheWorkstationCATheTrustPageCarriesNothingAndTheCodeGoesOverHTTPS() throws {
        let fingerprint = String(repeating: "ab", count: 32)
        let url = PairingURL(
            host: "192.168.1.20", port: 9099, credential: .pairingCode("7K3QZ9M2XA"), addresses: ["192.168.1.20"], serverId: "s",
            serverName: "n", fingerprint: fingerprint, trustFirst: true)
        #expect(url.trustString == "http://192.168.1.20:9099/")
        #expect(url.webString == "https://192.168.1.20:9099/#pair=v1&code=7K3QZ9M2XA&id=s&name=n&fp=\(fingerprint)")
        #expect(try !PairingURL(parsing: url.webString).trustFirst)
        // What bridges before issue 31 showed still parses: a native client pins `fp` and connects with wss://.
        let old = try PairingURL(parsing: url.webString.replacingOccurrences(of: "https://", with: "http://"))
        #expect(old.trustFirst && old.fingerprint == fingerprint && old == url && old.webString.hasPrefix("https://"))
        let ipv6 = PairingURL(
            host: "fd7a::1", port: 443, credential: .staticToken("t"), addresses: ["fd7a::1"], serverId: "s", serverName: "n",
            fingerprint: fingerprint, trustFirst: true)
        #expect(ipv6.trustString == "http://[fd7a::1]:443/")
        // No trust page without the workstation's CA, nor without TLS.
        var provided = url
        provided.trustFirst = false
        #expect(provided.trustString == nil)
        var plain = url
        plain.fingerprint = nil
        #expect(plain.trustString == nil && plain.webString.hasPrefix("http://192.168.1.20:9099/#pair=v1&code="))
    }

    @Test(arguments: [
        PairingURL(
            host: "box.tail1.ts.net", port: 9099, credential: .pairingCode("7K3QZ9M2XA"), addresses: ["box.tail1.ts.net"], serverId: "id",
            serverName: "Ana's box"),
        PairingURL(
            host: "fd7a::1", port: 8443, credential: .staticToken("tok&en"), addresses: ["fd7a::1"], serverId: "id", serverName: "n",
            fingerprint: "ff"),
    ])
    func nativeClientsParseTheWebForm(_ url: PairingURL) throws {
        let parsed = try PairingURL(parsing: url.webString)
        #expect(parsed == url)
    }

    @Test func plainWebPageIsNotAPairingURL() {
        #expect(throws: PairingURLError.self) { try PairingURL(parsing: "http://example.test:9099/") }
        #expect(throws: PairingURLError.self) { try PairingURL(parsing: "http://example.test:9099/#pair=v9&code=X") }
    }
}
