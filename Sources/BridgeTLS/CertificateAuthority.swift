import Crypto
import Foundation
import SwiftASN1
import X509

/// The workstation's own certificate authority: a self-signed ECDSA P-256 CA certificate whose critical Name
/// Constraints (``NameScope``) limit it to this workstation's names and addresses, and its key.
///
/// A phone trusts it once (`GET /ca.mobileconfig`, `GET /ca.crt`); `serve --tls` then serves a leaf issued by
/// it (``issueLeaf(names:now:)``), which browsers accept with no warning and which can be re-issued for new
/// addresses inside the scope without the phone trusting anything again. Native clients pin its
/// ``fingerprint``.
public struct CertificateAuthority: Sendable {
    /// How long a new CA is valid: 10 years (phones trust it once).
    public static let validity: Duration = .seconds(3650 * 86400)
    /// How long a leaf is valid: 397 days, within every browser's and Apple's limit for a TLS server certificate.
    public static let leafValidity: Duration = .seconds(397 * 86400)
    /// How far before now a new certificate starts being valid, for clients whose clock is behind.
    public static let backdating: Duration = .seconds(86400)

    /// The CA certificate, PEM.
    public let certificatePEM: String
    /// Its private key, PEM (PKCS #8). A secret: stored 0600, never logged.
    public let privateKeyPEM: String
    /// The certificate's DER encoding (`GET /ca.crt`; what the fingerprint is taken of).
    public let certificateDER: [UInt8]
    /// The parsed certificate.
    public let certificate: Certificate
    /// What it may sign for, read from its Name Constraints.
    public let scope: NameScope
    private let key: P256.Signing.PrivateKey

    /// Reads a CA from its PEM texts.
    /// - Throws: ``TLSIdentityError`` when either is invalid, the key does not belong to the certificate, or the
    ///   certificate is not a name-constrained CA.
    public init(certificatePEM: String, privateKeyPEM: String) throws(TLSIdentityError) {
        let document: PEMDocument
        let certificate: Certificate
        do {
            document = try PEMDocument(pemString: certificatePEM)
            certificate = try Certificate(derEncoded: document.derBytes)
        } catch {
            throw .invalid("the CA certificate is not a PEM X.509 certificate: \(error)")
        }
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw .invalid("the CA key is not a PEM P-256 key: \(error)")
        }
        guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
            throw .invalid("the CA key does not belong to the CA certificate")
        }
        guard case .isCertificateAuthority = try? certificate.extensions.basicConstraints,
            let constraints = try? certificate.extensions.nameConstraints, let scope = NameScope(constraints)
        else {
            throw .invalid("the CA certificate is not a name-constrained certificate authority")
        }
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.certificateDER = document.derBytes
        self.certificate = certificate
        self.scope = scope
        self.key = key
    }

    /// A new CA for `scope`. `name` (the workstation's) and the day go in its common name, which is what a
    /// phone's certificate settings list.
    public static func make(scope: NameScope, name: String, now: Date = Date()) throws -> CertificateAuthority {
        let key = P256.Signing.PrivateKey()
        let certificateKey = Certificate.PrivateKey(key)
        let day = now.formatted(.iso8601.year().month().day())
        let printable = String(name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(40))
        let subject = try DistinguishedName {
            CommonName("codex-bridge CA for \(printable.isEmpty ? "this workstation" : printable), \(day)")
            OrganizationName("codex-bridge")
        }
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            // Verifiers chain extended key usage: nothing below this CA is good for anything but a TLS server.
            try ExtendedKeyUsage([.serverAuth])
            Critical(scope.nameConstraints)
            SubjectKeyIdentifier(hash: certificateKey.publicKey)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: certificateKey.publicKey,
            notValidBefore: now.addingTimeInterval(-Double(backdating.components.seconds)),
            notValidAfter: now.addingTimeInterval(Double(validity.components.seconds)),
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: certificateKey)
        return try CertificateAuthority(certificatePEM: try certificate.serializeAsPEM().pemString, privateKeyPEM: key.pemRepresentation)
    }

    /// What this CA lacks of the limits a new one has (a CA made before issue 31: no extended key usage, the
    /// other name forms open); empty for a CA made now. Such a CA keeps working; `doctor` reports it and
    /// `tls ca rotate` replaces it.
    public var missingLimits: [String] {
        var missing: [String] = []
        if (try? certificate.extensions.extendedKeyUsage).flatMap({ $0 }).map(Array.init) != [.serverAuth] {
            missing.append("extended key usage serverAuth only")
        }
        if !((try? certificate.extensions.nameConstraints).flatMap { $0 }.map(NameScope.closesOtherNameForms) ?? false) {
            missing.append("name constraints on e-mail, URI and directory names")
        }
        return missing
    }

    /// SHA-256 of the DER certificate, 64 lowercase hex digits: what native clients pin (`fp=`).
    public var fingerprint: String { TLSFingerprint.of(der: certificateDER) }
    /// The common name (what a phone's settings show).
    public var commonName: String {
        certificate.subject.flatMap { $0 }.first { $0.type == .RDNAttributeType.commonName }.flatMap { String($0.value) }
            ?? "codex-bridge CA"
    }
    /// When the CA became valid.
    public var notValidBefore: Date { certificate.notValidBefore }
    /// When the CA stops being valid.
    public var notValidAfter: Date { certificate.notValidAfter }

    /// The names of `names` this CA may sign for, in order, duplicates dropped.
    public func permittedNames(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.map(NameScope.bare).filter { name in
            guard scope.permits(name) else { return false }
            let key = SubjectAlternativeName.ipAddressBytes(name).map { $0.map(String.init).joined(separator: ".") } ?? name.lowercased()
            return seen.insert(key).inserted
        }
    }

    /// A new server certificate (and key) for the permitted ones of `names`, signed by this CA.
    /// - Throws: when none of the names is permitted.
    public func issueLeaf(names: [String], now: Date = Date()) throws -> TLSIdentity {
        let permitted = permittedNames(names)
        guard !permitted.isEmpty else { throw TLSIdentityError.invalid("none of \(names) is inside the CA's name constraints") }
        let leafKey = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(leafKey.publicKey)
        let commonName = permitted.first { SubjectAlternativeName.ipAddressBytes($0) == nil } ?? permitted[0]
        // The organization first: the CA's constraints permit only directory names below O=codex-bridge.
        let subject = DistinguishedName(
            Array(NameScope.leafOrganization)
                + [RelativeDistinguishedName(.init(type: .RDNAttributeType.commonName, utf8String: commonName))])
        let authorityKeyID = try certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        let extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(SubjectAlternativeName.generalNames(permitted))
            if let authorityKeyID { AuthorityKeyIdentifier(keyIdentifier: authorityKeyID) }
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-Double(Self.backdating.components.seconds)),
            notValidAfter: min(notValidAfter, now.addingTimeInterval(Double(Self.leafValidity.components.seconds))),
            issuer: certificate.subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(key))
        return try TLSIdentity(certificatePEM: try leaf.serializeAsPEM().pemString, privateKeyPEM: leafKey.pemRepresentation)
    }

    /// Whether `leaf` was signed by this CA.
    public func issued(_ leaf: Certificate) -> Bool {
        leaf.issuer == certificate.subject && certificate.publicKey.isValidSignature(leaf.signature, for: leaf)
    }
}
