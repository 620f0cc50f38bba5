import Crypto
import Foundation
import SwiftASN1
import X509

/// Makes the bridge's self-signed certificate: ECDSA P-256, SHA-256 signature, a server (not CA) certificate.
public struct TLSCertificateFactory: Sendable {
    /// How long a new certificate is valid: 825 days, the longest that Apple platforms accept for a TLS
    /// server certificate.
    public static let defaultValidity: Duration = .seconds(825 * 86400)
    /// How far before now a new certificate starts being valid, for clients whose clock is behind.
    public static let backdating: Duration = .seconds(86400)
    /// Names every certificate carries, so loopback clients can check the name too.
    public static let loopbackNames = ["localhost", "127.0.0.1", "::1"]

    /// The subject's common name.
    public var commonName: String
    /// Validity from issue.
    public var validity: Duration

    public init(commonName: String = "codex-bridge", validity: Duration = TLSCertificateFactory.defaultValidity) {
        self.commonName = commonName
        self.validity = validity
    }

    /// A new key and certificate whose subject alternative names are `names` (host names and IP addresses;
    /// duplicates and names that cannot be in a certificate are dropped) plus ``loopbackNames``.
    public func make(names: [String], now: Date = Date()) throws -> TLSIdentity {
        let key = P256.Signing.PrivateKey()
        let certificateKey = Certificate.PrivateKey(key)
        let subject = try DistinguishedName {
            CommonName(commonName)
            OrganizationName("codex-bridge")
        }
        let alternativeNames = Self.generalNames(names + Self.loopbackNames)
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            // keyCertSign: the certificate signs itself, and BoringSSL (swift-nio-ssl) accepts a self-signed
            // certificate as its own trust anchor only when its key usage allows that signature. A client that
            // pins it as the one trust root (BridgeClient) fails verification without it.
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(alternativeNames)
        }
        let seconds = Double(validity.components.seconds)
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: certificateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-Double(Self.backdating.components.seconds)),
            notValidAfter: now.addingTimeInterval(seconds),
            issuer: subject,
            subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: certificateKey
        )
        return try TLSIdentity(certificatePEM: try certificate.serializeAsPEM().pemString, privateKeyPEM: key.pemRepresentation)
    }

    /// The names as DNS-name or IP-address entries, first occurrence kept.
    static func generalNames(_ names: [String]) -> [GeneralName] {
        var seen = Set<String>()
        var result: [GeneralName] = []
        for raw in names {
            var name = raw.trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            if let bytes = SubjectAlternativeName.ipAddressBytes(name) {
                guard seen.insert(bytes.map(String.init).joined(separator: ".")).inserted else { continue }
                result.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes))))
            } else if SubjectAlternativeName.isDNSName(name) {
                let lowered = name.lowercased()
                guard seen.insert(lowered).inserted else { continue }
                result.append(.dnsName(lowered))
            }
        }
        return result
    }
}
