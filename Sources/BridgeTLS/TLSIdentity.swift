import Crypto
import Foundation
import SwiftASN1
import X509

/// A TLS server identity: an ECDSA P-256 certificate and its private key (the leaf the workstation's
/// ``CertificateAuthority`` issues).
public struct TLSIdentity: Sendable {
    /// The certificate, PEM.
    public let certificatePEM: String
    /// The private key, PEM (PKCS #8). A secret: stored 0600, never logged.
    public let privateKeyPEM: String
    /// The certificate's DER encoding: what a TLS peer receives and what the fingerprint is taken of.
    public let certificateDER: [UInt8]
    /// The parsed certificate.
    public let certificate: Certificate

    /// Reads an identity from its PEM texts.
    /// - Throws: ``TLSIdentityError`` when either is not valid or the key does not belong to the certificate.
    public init(certificatePEM: String, privateKeyPEM: String) throws(TLSIdentityError) {
        let document: PEMDocument
        let certificate: Certificate
        let key: P256.Signing.PrivateKey
        do {
            document = try PEMDocument(pemString: certificatePEM)
            certificate = try Certificate(derEncoded: document.derBytes)
        } catch {
            throw .invalid("the certificate is not a PEM X.509 certificate: \(error)")
        }
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw .invalid("the private key is not a PEM P-256 key: \(error)")
        }
        guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
            throw .invalid("the private key does not belong to the certificate")
        }
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.certificateDER = document.derBytes
        self.certificate = certificate
    }

    /// The certificate's SHA-256 fingerprint: ``TLSFingerprint/of(der:)`` of ``certificateDER``.
    public var fingerprint: String { TLSFingerprint.of(der: certificateDER) }

    /// The subject alternative names, as text (DNS names and IP addresses).
    public var subjectAlternativeNames: [String] {
        guard let names = try? certificate.extensions.subjectAlternativeNames else { return [] }
        return names.compactMap { name in
            switch name {
            case .dnsName(let host): host
            case .ipAddress(let bytes): SubjectAlternativeName.ipAddressText(Array(bytes.bytes))
            default: nil
            }
        }
    }

    /// A name as a certificate holds it: an IP address in its canonical text form, a DNS name lowercased.
    public static func canonicalName(_ name: String) -> String {
        let bare = NameScope.bare(name)
        if let bytes = SubjectAlternativeName.ipAddressBytes(bare) { return SubjectAlternativeName.ipAddressText(bytes) ?? bare }
        return bare.lowercased()
    }

    /// When the certificate stops being valid.
    public var notValidAfter: Date { certificate.notValidAfter }
    /// When the certificate became valid.
    public var notValidBefore: Date { certificate.notValidBefore }
}

/// A TLS identity that cannot be read or made.
public struct TLSIdentityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for a person.
    public let message: String

    public var description: String { message }

    /// The files exist but do not hold a usable identity.
    public static func invalid(_ message: String) -> TLSIdentityError { TLSIdentityError(message: message) }
}
