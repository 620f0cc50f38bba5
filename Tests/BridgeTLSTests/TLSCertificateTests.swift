import BridgeStore
import BridgeTLS
import Crypto
import Foundation
import SwiftASN1
import Testing
import X509

@Suite struct NameScopeTests {
    @Test func workstationScopeTakesSubnetsForLANAndExactTailscale() throws {
        let scope = NameScope.forWorkstation(
            hostName: "box",
            names: [
                "192.168.1.20", "10.0.5.9", "100.101.102.103", "box.tail1234.ts.net", "fd7a:115c:a1e0::1", "2001:db8:1:2::abcd",
                "fd12:3456:789a:1::5", "203.0.113.7", "[fe80::1%eth0]", "example.com", "router.lan",
            ])
        #expect(scope.dnsNames == ["localhost", "box.local", "box.tail1234.ts.net", "router.lan"])
        #expect(
            scope.ipRanges.map(\.description) == [
                "127.0.0.1/32", "::1/128", "192.168.1.0/24", "10.0.5.0/24", "100.101.102.103/32", "fd7a:115c:a1e0::1/128",
                "2001:db8:1:2::/64", "fd12:3456:789a:1::/64", "203.0.113.7/32",
            ])
    }

    @Test(arguments: [
        ("192.168.1.77", true), ("192.168.2.20", false), ("100.101.102.103", true), ("100.101.102.104", false),
        ("box.local", true), ("x.box.local", true), ("BOX.LOCAL", true), ("otherbox.local", false), ("box", false),
        ("evil.com", false), ("other.tail1234.ts.net", false), ("localhost", true), ("127.0.0.1", true), ("127.0.0.2", false),
        ("::1", true), ("2001:db8:1:2::1", true), ("2001:db8:1:3::1", false), ("[2001:db8:1:2::9]", true),
    ])
    func permits(name: String, expected: Bool) {
        let scope = NameScope.forWorkstation(
            hostName: "box.example.org", names: ["192.168.1.20", "100.101.102.103", "2001:db8:1:2::abcd"])
        #expect(scope.permits(name) == expected)
    }

    @Test func singleLabelAndTwoLabelHostNamesAreNeverConstraints() {
        // A constraint also permits every name below it: `box` would permit `*.box`, `example.com` all of it.
        #expect(NameScope.forWorkstation(hostName: "dev", names: []).dnsNames == ["localhost", "dev.local"])
        #expect(NameScope.forWorkstation(hostName: "example.com", names: []).dnsNames == ["localhost", "example.local"])
        #expect(
            NameScope.forWorkstation(hostName: "ws.corp.example.com", names: []).dnsNames == [
                "localhost", "ws.local", "ws.corp.example.com",
            ])
    }
}

@Suite struct CertificateAuthorityTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func authority() throws -> CertificateAuthority {
        try CertificateAuthority.make(
            scope: .forWorkstation(hostName: "box", names: ["192.168.1.20", "box.tail1234.ts.net"]), name: "box", now: now)
    }

    @Test func caIsACriticallyNameConstrainedP256Authority() throws {
        let ca = try authority()
        let certificate = ca.certificate
        #expect(certificate.issuer == certificate.subject)
        #expect(certificate.publicKey.isValidSignature(certificate.signature, for: certificate))
        #expect(P256.Signing.PublicKey(certificate.publicKey) != nil)
        #expect(try certificate.extensions.basicConstraints == .isCertificateAuthority(maxPathLength: 0))
        #expect(try certificate.extensions.keyUsage == KeyUsage(keyCertSign: true, cRLSign: true))
        let constraints = try #require(certificate.extensions[oid: .X509ExtensionID.nameConstraints])
        #expect(constraints.critical)
        #expect(certificate.extensions[oid: .X509ExtensionID.basicConstraints]?.critical == true)
        #expect(ca.scope.entries == ["localhost", "box.local", "box.tail1234.ts.net", "127.0.0.1/32", "::1/128", "192.168.1.0/24"])
        #expect(ca.commonName == "codex-bridge CA for box, 2027-01-15")
        #expect(ca.fingerprint == SHA256.hash(data: ca.certificateDER).map { String(format: "%02x", $0) }.joined())
        let read = try CertificateAuthority(certificatePEM: ca.certificatePEM, privateKeyPEM: ca.privateKeyPEM)
        #expect(read.fingerprint == ca.fingerprint && read.scope == ca.scope)
    }

    @Test func leafNamesOnlyWhatTheScopePermitsAndIsSignedByTheCA() throws {
        let ca = try authority()
        let leaf = try ca.issueLeaf(
            names: ["localhost", "127.0.0.1", "::1", "box", "box.local", "192.168.1.31", "10.9.9.9", "evil.com", "[::1]"], now: now)
        #expect(leaf.subjectAlternativeNames == ["localhost", "127.0.0.1", "::1", "box.local", "192.168.1.31"])
        #expect(ca.issued(leaf.certificate))
        #expect(try leaf.certificate.extensions.basicConstraints == .notCertificateAuthority)
        #expect(try leaf.certificate.extensions.extendedKeyUsage?.contains(.serverAuth) == true)
        #expect(leaf.notValidAfter == now.addingTimeInterval(397 * 86400))
        let other = try authority()
        #expect(!other.issued(leaf.certificate))
        #expect(throws: TLSIdentityError.self) { try ca.issueLeaf(names: ["evil.com"], now: now) }
        _ = try leaf.makeServerContext(chain: [ca.certificateDER])
    }

    /// Issue 31, finding 9: a new CA is for TLS servers only and closes the other name forms; a leaf's subject
    /// starts with the one directory name it permits. (openssl's view: `test_lan_ca.py`.)
    @Test func caIsForTLSServersOnlyAndClosesTheOtherNameForms() throws {
        let ca = try authority()
        #expect(try ca.certificate.extensions.extendedKeyUsage.map(Array.init) == [.serverAuth])
        let constraints = try #require(try ca.certificate.extensions.nameConstraints)
        #expect(constraints.excludedSubtrees.isEmpty)
        #expect(constraints.permittedSubtrees.filter { NameScope.otherNameForms.contains($0) }.count == 3)
        #expect(ca.missingLimits.isEmpty)
        let leaf = try ca.issueLeaf(names: ["localhost"], now: now)
        #expect(Array(leaf.certificate.subject.prefix(1)) == Array(NameScope.leafOrganization))
    }

    /// A CA made before issue 31 (no extended key usage, only DNS and IP constrained) still loads and works, and
    /// says what it lacks (`doctor` reports it, `tls ca rotate` replaces it).
    @Test func aCAMadeBeforeTheLimitsStillLoadsAndSaysWhatItLacks() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("codex-bridge CA for box, 2026-11-01")
            OrganizationName("codex-bridge")
        }
        let scope = NameScope.forWorkstation(hostName: "box", names: ["192.168.1.20"])
        let old = NameConstraints(
            permittedDNSDomains: scope.dnsNames,
            permittedIPRanges: scope.nameConstraints.permittedIPRanges.map { $0 })
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: now, notValidAfter: now + 86400 * 3650,
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                Critical(old)
            },
            issuerPrivateKey: .init(key))
        let ca = try CertificateAuthority(certificatePEM: try certificate.serializeAsPEM().pemString, privateKeyPEM: key.pemRepresentation)
        #expect(ca.scope == scope)
        #expect(ca.missingLimits == ["extended key usage serverAuth only", "name constraints on e-mail, URI and directory names"])
        #expect(ca.issued(try ca.issueLeaf(names: ["localhost"], now: now).certificate))
    }

    @Test func aCertificateWithoutConstraintsIsNotAcceptedAsTheCA() throws {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("unconstrained") }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: now, notValidAfter: now + 86400,
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0)) },
            issuerPrivateKey: .init(key))
        #expect(throws: TLSIdentityError.self) {
            try CertificateAuthority(certificatePEM: try certificate.serializeAsPEM().pemString, privateKeyPEM: key.pemRepresentation)
        }
    }
}

@Suite struct TLSStoreTests {
    func temporaryStore() -> (TLSStore, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString)", isDirectory: true)
        return (TLSStore(directory: directory.appendingPathComponent("tls")), directory)
    }

    @Test func caIsKeptAndTheLeafFollowsTheNames() throws {
        let (store, root) = temporaryStore()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try store.loadAuthority() == nil)
        let scope = NameScope.forWorkstation(hostName: "box", names: ["192.168.1.20"])
        let (ca, created) = try store.loadOrCreateAuthority(scope: scope, name: "box")
        #expect(created)
        let (again, createdAgain) = try store.loadOrCreateAuthority(scope: .forWorkstation(hostName: "x", names: []), name: "x")
        #expect(!createdAgain && again.fingerprint == ca.fingerprint)

        let (first, issued) = try store.ensureLeaf(authority: ca, names: ["localhost", "192.168.1.20"])
        #expect(issued)
        let (same, reissued) = try store.ensureLeaf(authority: ca, names: ["192.168.1.20", "localhost", "10.1.1.1"])
        #expect(!reissued && same.fingerprint == first.fingerprint)
        // A DHCP change inside the subnet: a new leaf, from the same CA.
        let token = store.leafChangeToken()
        let (moved, issuedForMove) = try store.ensureLeaf(authority: ca, names: ["localhost", "192.168.1.57"])
        #expect(issuedForMove && moved.subjectAlternativeNames == ["localhost", "192.168.1.57"] && ca.issued(moved.certificate))
        #expect(store.leafChangeToken() != token)
        // Near its end: renewed.
        let (_, renewed) = try store.ensureLeaf(authority: ca, names: ["localhost", "192.168.1.57"], now: Date() + 380 * 86400)
        #expect(renewed)

        for file in store.keyFiles {
            #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int == 0o600)
        }
        #expect(try FileManager.default.attributesOfItem(atPath: store.directory.path)[.posixPermissions] as? Int == 0o700)

        let rotated = try store.rotateAuthority(scope: scope, name: "box")
        #expect(rotated.fingerprint != ca.fingerprint)
        #expect(store.loadLeaf() == nil)
        let (fresh, _) = try store.ensureLeaf(authority: rotated, names: ["localhost"])
        #expect(rotated.issued(fresh.certificate))
        try FileManager.default.removeItem(at: store.authorityKeyFile)
        #expect(throws: TLSIdentityError.self) { try store.loadAuthority() }
    }
}

@Suite struct ConfigurationProfileTests {
    @Test func profileIsAnXMLPlistHoldingOnlyTheCA() throws {
        let ca = try CertificateAuthority.make(scope: .forWorkstation(hostName: "box", names: []), name: "box")
        let bytes = ConfigurationProfile.make(authority: ca, serverName: "Ana's <box> & co\u{1}")
        var format = PropertyListSerialization.PropertyListFormat.binary
        let plist = try #require(
            try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: &format) as? [String: Any])
        #expect(format == .xml)
        #expect(plist["PayloadType"] as? String == "Configuration")
        #expect(plist["PayloadDisplayName"] as? String == "codex-bridge: Ana's <box> & co")
        let payloads = try #require(plist["PayloadContent"] as? [[String: Any]])
        #expect(payloads.count == 1)
        #expect(payloads[0]["PayloadType"] as? String == "com.apple.security.root")
        #expect(payloads[0]["PayloadContent"] as? Data == Data(ca.certificateDER))
        // The same CA, the same identifiers: downloading again replaces the installed profile.
        let again = ConfigurationProfile.make(authority: ca, serverName: "box")
        let reread = try #require(try PropertyListSerialization.propertyList(from: Data(again), options: [], format: nil) as? [String: Any])
        #expect(reread["PayloadUUID"] as? String == plist["PayloadUUID"] as? String)
        #expect((plist["PayloadUUID"] as? String)?.count == 36)
    }
}

@Suite struct PinnedChainTests {
    @Test func pinIsTheLeafOrTheCAThatSignedIt() throws {
        let ca = try CertificateAuthority.make(scope: .forWorkstation(hostName: "box", names: ["192.168.1.20"]), name: "box")
        let leaf = try ca.issueLeaf(names: ["localhost", "127.0.0.1"])
        #expect(PinnedChain.accepts(chain: [leaf.certificateDER, ca.certificateDER], pin: ca.fingerprint))
        #expect(PinnedChain.accepts(chain: [leaf.certificateDER, ca.certificateDER], pin: leaf.fingerprint))
        #expect(!PinnedChain.accepts(chain: [leaf.certificateDER, ca.certificateDER], pin: String(repeating: "0", count: 64)))

        // Someone else's leaf presented next to our (public) CA certificate, claiming it as the issuer.
        let impostor = try CertificateAuthority.make(scope: .forWorkstation(hostName: "box", names: []), name: "box")
        let forged = try Self.leaf(
            issuer: ca.certificate.subject, key: P256.Signing.PrivateKey(pemRepresentation: impostor.privateKeyPEM), names: ["127.0.0.1"])
        #expect(!PinnedChain.accepts(chain: [forged, ca.certificateDER], pin: ca.fingerprint))

        // Signed with the CA's own key but naming what the constraints do not permit.
        let outside = try Self.leaf(
            issuer: ca.certificate.subject, key: P256.Signing.PrivateKey(pemRepresentation: ca.privateKeyPEM),
            names: ["127.0.0.1", "bank.example"])
        #expect(!PinnedChain.accepts(chain: [outside, ca.certificateDER], pin: ca.fingerprint))
        let inside = try Self.leaf(
            issuer: ca.certificate.subject, key: P256.Signing.PrivateKey(pemRepresentation: ca.privateKeyPEM), names: ["127.0.0.1"])
        #expect(PinnedChain.accepts(chain: [inside, ca.certificateDER], pin: ca.fingerprint))
    }

    static func leaf(issuer: DistinguishedName, key: P256.Signing.PrivateKey, names: [String]) throws -> [UInt8] {
        let leafKey = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName("leaf") }
        let sans: [GeneralName] = names.map { name in
            if name == "127.0.0.1" { return .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])) }
            return .dnsName(name)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey), notValidBefore: Date() - 60,
            notValidAfter: Date() + 86400, issuer: issuer, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { SubjectAlternativeNames(sans) }, issuerPrivateKey: .init(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
