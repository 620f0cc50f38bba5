import BridgeStore
import BridgeTLS
import Crypto
import Foundation
import Testing
import X509

@Suite struct TLSCertificateTests {
    @Test func certificateIsSelfSignedP256WithTheNames() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let identity = try TLSCertificateFactory().make(
            names: ["box", "192.168.1.20", "box.tail1234.ts.net", "fd7a:115c:a1e0::1", "192.168.1.20", "[::2]", "bad name"], now: now)
        let certificate = identity.certificate
        #expect(
            identity.subjectAlternativeNames == [
                "box", "192.168.1.20", "box.tail1234.ts.net", "fd7a:115c:a1e0::1", "::2", "localhost", "127.0.0.1", "::1",
            ])
        #expect(certificate.signatureAlgorithm == .ecdsaWithSHA256)
        #expect(P256.Signing.PublicKey(certificate.publicKey) != nil)
        #expect(certificate.issuer == certificate.subject)
        #expect(certificate.publicKey.isValidSignature(certificate.signature, for: certificate))
        #expect(certificate.notValidBefore == now.addingTimeInterval(-86400))
        #expect(certificate.notValidAfter == now.addingTimeInterval(825 * 86400))
        let constraints = try #require(try certificate.extensions.basicConstraints)
        #expect(constraints == .notCertificateAuthority)
        #expect(try certificate.extensions.extendedKeyUsage?.contains(.serverAuth) == true)
        // Without keyCertSign, BoringSSL does not accept the certificate as its own (pinned) trust root.
        #expect(try certificate.extensions.keyUsage == KeyUsage(digitalSignature: true, keyCertSign: true))
    }

    @Test func fingerprintIsSHA256OfTheDERInLowercaseHex() throws {
        let identity = try TLSCertificateFactory().make(names: [])
        let expected = SHA256.hash(data: identity.certificateDER).map { String(format: "%02x", $0) }.joined()
        #expect(identity.fingerprint == expected)
        #expect(identity.fingerprint.count == 64)
        let colons = stride(from: 0, to: 64, by: 2).map { offset -> String in
            let start = expected.index(expected.startIndex, offsetBy: offset)
            return String(expected[start..<expected.index(start, offsetBy: 2)]).uppercased()
        }.joined(separator: ":")
        #expect(TLSFingerprint.normalized(colons) == expected)
        #expect(TLSFingerprint.normalized("not hex") == nil)
    }

    @Test func identityRoundTripsThroughPEM() throws {
        let identity = try TLSCertificateFactory().make(names: ["host"])
        let read = try TLSIdentity(certificatePEM: identity.certificatePEM, privateKeyPEM: identity.privateKeyPEM)
        #expect(read.fingerprint == identity.fingerprint)
        let other = try TLSCertificateFactory().make(names: ["host"])
        #expect(other.fingerprint != identity.fingerprint)
        #expect(throws: TLSIdentityError.self) {
            try TLSIdentity(certificatePEM: identity.certificatePEM, privateKeyPEM: other.privateKeyPEM)
        }
        _ = try identity.makeServerContext()
    }

    @Test func storeKeepsTheIdentityUntilRotated() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = TLSStore(directory: directory.appendingPathComponent("tls"))
        #expect(try store.load() == nil)
        let (first, created) = try store.loadOrCreate(names: ["box"])
        #expect(created)
        let (again, createdAgain) = try store.loadOrCreate(names: ["other"])
        #expect(!createdAgain)
        #expect(again.fingerprint == first.fingerprint)
        let keyMode = try FileManager.default.attributesOfItem(atPath: store.keyFile.path)[.posixPermissions] as? Int
        let directoryMode = try FileManager.default.attributesOfItem(atPath: store.directory.path)[.posixPermissions] as? Int
        #expect(keyMode == 0o600)
        #expect(directoryMode == 0o700)
        let rotated = try store.rotate(names: ["box"])
        #expect(rotated.fingerprint != first.fingerprint)
        #expect(try store.load()?.fingerprint == rotated.fingerprint)
        try FileManager.default.removeItem(at: store.keyFile)
        #expect(throws: TLSIdentityError.self) { try store.load() }
    }
}
