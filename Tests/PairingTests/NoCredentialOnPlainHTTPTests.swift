import BridgeProtocol
import BridgeStore
import Foundation
import Pairing
import Testing

/// Issue 31 finding 2: with TLS, no credential (pairing code or shared secret) is ever put in an `http://` URL of
/// an origin other than loopback, where whoever answers for the address on the LAN serves the page that reads it.
/// Every URL an invitation shows is looked at: the JSON summary's, the QR codes' contents and the terminal's text.
@Suite("No credential on plain HTTP")
struct NoCredentialOnPlainHTTPTests {
    static let fingerprint = "590d63a3b3e565006d519f356c40d6868d39f46c3d420951a8e7d2dcd6fa7bfe"
    let identity = ServerIdentity(id: "q2Xv-9aZ0bCdEfGhIjKlMn", name: "box")

    static let hosts: [CandidateAddress] = [
        CandidateAddress(host: "192.168.1.20", kind: .lanIPv4, interface: "eth0"),
        CandidateAddress(host: "box.tail1234.ts.net", kind: .magicDNS, isTailscale: true),
        CandidateAddress(host: "fd7a:115c:a1e0::1", kind: .tailscaleIPv6, isTailscale: true),
    ]

    static let credentials: [PairingURL.Credential] = [.pairingCode("7K3QZ9M2XA"), .staticToken("s3cr3t-shared-token")]

    /// Every `http://` or `https://` URL in `text`.
    static func urls(in text: String) -> [String] {
        let pattern = try! Regex(#"https?://[^\s"]+"#)
        return text.matches(of: pattern).map { String(text[$0.range]) }
    }

    /// Whether `url` is `http://` to a host other than loopback.
    static func isPlainOffLoopback(_ url: String) -> Bool {
        guard url.lowercased().hasPrefix("http://"), let host = URLComponents(string: url)?.host else { return false }
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return !(bare.hasPrefix("127.") || bare == "::1" || bare == "localhost")
    }

    @Test(arguments: Self.credentials, [true, false])
    func withTLSNoCredentialIsInAPlainHTTPURL(credential: PairingURL.Credential, workstationCA: Bool) throws {
        for best in Self.hosts.indices {
            var offered = Self.hosts
            offered.swapAt(0, best)
            let invitation = try PairingInvitation(
                credential: credential, identity: identity, port: 9099, addresses: offered, fingerprint: Self.fingerprint,
                trustFirst: workstationCA)
            let json = String(decoding: try JSONEncoder().encode(invitation.summary), as: UTF8.self)
                .replacingOccurrences(of: "\\/", with: "/")
            var shown = Self.urls(in: json)
            shown += Self.urls(in: try invitation.terminalText())
            shown += invitation.scans.map(\.url)
            #expect(!shown.isEmpty)
            let secret = credential.token
            for url in shown where Self.isPlainOffLoopback(url) {
                #expect(!url.contains(secret), "a credential in \(url)")
            }
            // The way in with the credential is https; with the workstation's CA the trust page comes first, plain
            // and empty-handed.
            #expect(invitation.summary.webUrl.hasPrefix("https://") && invitation.summary.webUrl.contains(secret))
            #expect(invitation.scans.last?.url == invitation.summary.webUrl)
            if workstationCA {
                let trust = try #require(invitation.summary.trustUrl)
                #expect(trust.hasPrefix("http://") && !trust.contains("#"))
                #expect(invitation.scans.map(\.url) == [trust, invitation.summary.webUrl])
            } else {
                #expect(invitation.summary.trustUrl == nil && invitation.scans.count == 1)
            }
        }
    }

    /// Without TLS (plain http on loopback or the LAN, the default) the QR still pairs in one scan, as before.
    @Test func withoutTLSTheOneQRCarriesTheCode() throws {
        let invitation = try PairingInvitation(
            credential: .pairingCode("7K3QZ9M2XA"), identity: identity, port: 9099, addresses: Self.hosts)
        #expect(invitation.summary.webUrl.hasPrefix("http://192.168.1.20:9099/#pair=v1&code=7K3QZ9M2XA&"))
        #expect(invitation.scans.map(\.url) == [invitation.summary.webUrl] && invitation.summary.trustUrl == nil)
    }
}
