import BridgeStore
import Crypto
import Foundation
import Testing

@testable import BridgePush

@Suite struct VAPIDTests {
    @Test func tokenVerifiesAgainstThePublicKey() throws {
        let key = VAPIDKey(privateKey: P256.Signing.PrivateKey())
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let header = try key.authorization(
            endpoint: URL(string: "https://push.example.net:8443/wpush/abc?x=1")!, subject: "mailto:ana@example.org", now: now)
        #expect(header.hasPrefix("vapid t="))
        let parts = header.dropFirst("vapid t=".count).components(separatedBy: ", k=")
        #expect(parts.count == 2)
        #expect(parts[1] == key.publicKeyBase64URL)
        let publicKey = try P256.Signing.PublicKey(x963Representation: Base64URL.decode(parts[1])!)
        let jwt = parts[0].split(separator: ".").map(String.init)
        #expect(jwt.count == 3)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: Base64URL.decode(jwt[2])!)
        #expect(publicKey.isValidSignature(signature, for: Data((jwt[0] + "." + jwt[1]).utf8)))
        let claims = try JSONSerialization.jsonObject(with: Base64URL.decode(jwt[1])!) as? [String: Any]
        #expect(claims?["aud"] as? String == "https://push.example.net:8443")
        #expect(claims?["sub"] as? String == "mailto:ana@example.org")
        let exp = try #require(claims?["exp"] as? Int)
        #expect(exp > Int(now.timeIntervalSince1970) && exp <= Int(now.timeIntervalSince1970) + 12 * 3600)
        let head = try JSONSerialization.jsonObject(with: Base64URL.decode(jwt[0])!) as? [String: Any]
        #expect(head?["alg"] as? String == "ES256")
        // A tampered claim no longer verifies.
        let forged = Base64URL.encode(Array(#"{"aud":"https://evil.example","exp":1,"sub":"x"}"#.utf8))
        #expect(!publicKey.isValidSignature(signature, for: Data((jwt[0] + "." + forged).utf8)))
    }

    @Test func keyIsMadeOnceAndKeptPrivate() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vapid-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("push-vapid.pem")
        let first = try VAPIDKey.loadOrCreate(at: file)
        let second = try VAPIDKey.loadOrCreate(at: file)
        #expect(first.publicKeyBase64URL == second.publicKeyBase64URL)
        #expect(Base64URL.decode(first.publicKeyBase64URL)?.count == 65)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func originDropsPathQueryAndDefaultPort() {
        #expect(VAPIDKey.origin(of: URL(string: "https://fcm.googleapis.com/fcm/send/abc")!) == "https://fcm.googleapis.com")
        #expect(VAPIDKey.origin(of: URL(string: "https://Push.Example:443/x")!) == "https://push.example")
        #expect(VAPIDKey.origin(of: URL(string: "http://127.0.0.1:8080/x")!) == "http://127.0.0.1:8080")
    }
}
