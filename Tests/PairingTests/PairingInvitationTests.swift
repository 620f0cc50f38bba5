import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import Pairing
import Testing

@Suite("PairingInvitation")
struct PairingInvitationTests {
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
    let addresses = [
        CandidateAddress(host: "192.168.1.20", kind: .lanIPv4, interface: "eth0"),
        CandidateAddress(host: "box.tail1234.ts.net", kind: .magicDNS, isTailscale: true),
    ]
    let identity = ServerIdentity(id: "q2Xv-9aZ0bCdEfGhIjKlMn", name: "box")

    @Test func withTheWorkstationCATheQRLeadsToTheTrustPageAndTheFingerprintIsShownAsAPhoneShowsIt() throws {
        let fingerprint = "590d63a3b3e565006d519f356c40d6868d39f46c3d420951a8e7d2dcd6fa7bfe"
        let invitation = try PairingInvitation(
            credential: .staticToken("t"), identity: identity, port: 9099, addresses: addresses, fingerprint: fingerprint, trustFirst: true)
        #expect(invitation.url.trustString == "http://192.168.1.20:9099/")
        #expect(invitation.url.webString.hasPrefix("https://192.168.1.20:9099/#pair=v1&"))
        #expect(invitation.url.string.contains("fp=\(fingerprint)"))
        let text = try invitation.terminalText()
        // Two QR codes, the trust page's first, each with its URL under it.
        let trustAt = try #require(text.range(of: "\nhttp://192.168.1.20:9099/\n"))
        let pairAt = try #require(text.range(of: "\n\(invitation.url.webString)\n"))
        #expect(trustAt.upperBound < pairAt.lowerBound && text.contains("The second QR code holds the shared secret"))
        #expect(text.contains("\n  59 0D 63 A3 B3 E5 65 00 6D 51 9F 35 6C 40 D6 86 8D 39 F4 6C 3D 42 09 51 A8 E7 D2 DC D6 FA 7B FE\n"))
        // A provided certificate browsers already trust: straight to https.
        let provided = try PairingInvitation(
            credential: .staticToken("t"), identity: identity, port: 9099, addresses: addresses, fingerprint: fingerprint)
        #expect(provided.url.webString.hasPrefix("https://"))
    }

    @Test func mintedInvitationPairsAPhone() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("invitation-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let database = try BridgeDatabase(paths: StatePaths(configDirectory: root, stateDirectory: root), logger: Self.logger)
        let registry = DeviceRegistry(database: database, logger: Self.logger)

        let invitation = try await PairingInvitation.mint(
            registry: registry, ttl: .seconds(600), identity: identity, port: 8765, addresses: addresses)
        let code = try #require(invitation.code)
        #expect(invitation.url.host == "192.168.1.20")
        #expect(invitation.url.addresses == ["192.168.1.20", "box.tail1234.ts.net"])

        // What a phone does: parse the scanned URL, send its code as hello.token.
        let scanned = try PairingURL(parsing: invitation.url.string)
        let paired = try await registry.redeem(code: scanned.credential.token, device: DeviceInfo(name: "phone"), address: nil)
        #expect(try await registry.authenticate(deviceToken: paired.deviceToken, address: nil)?.id == paired.deviceId)

        let summary = invitation.summary
        #expect(summary.code == code.code && summary.port == 8765 && summary.serverId == identity.id && summary.name == "box")
        let json = try JSONEncoder().encode(summary)
        let keys = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any]).keys
        #expect(Set(keys) == ["url", "webUrl", "code", "expiresAt", "addresses", "port", "serverId", "name", "scopes"])
        #expect(summary.scopes == .standard)
        #expect(summary.webUrl == invitation.url.webString)

        let text = try invitation.terminalText(now: code.expiresAt.addingTimeInterval(-600))
        // The QR and the text carry the web URL a phone's camera opens; --app shows the native one.
        #expect(text.contains(invitation.url.webString) && !text.contains(invitation.url.string))
        #expect(try invitation.terminalText(app: true).contains(invitation.url.string))
        #expect(text.contains(code.grouped) && text.contains("expires in 10 min"))
        #expect(text.contains("box.tail1234.ts.net (Tailscale MagicDNS)"))
    }

    @Test func staticInvitationAndNoAddresses() async throws {
        let invitation = try PairingInvitation(
            credential: .staticToken("secret-token"), identity: identity, port: 1, addresses: addresses)
        #expect(invitation.url.string.contains("&token=secret-token&"))
        #expect(invitation.summary.code == nil)
        #expect(throws: PairingInvitationError.noAddresses) {
            try PairingInvitation(credential: .staticToken("x"), identity: identity, port: 1, addresses: [])
        }
    }
}
