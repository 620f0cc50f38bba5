import Foundation
import SwiftASN1
import X509

/// Checks a server's certificate chain against a pinned fingerprint (the pairing URL's `fp`), whoever else
/// signed it: the pin is either the leaf itself (a certificate the user provides, `--tls-cert`) or the CA
/// that issued it (the workstation's CA, which the server sends after the leaf). A CA that merely appears in
/// the chain is not enough: the leaf must carry its signature, be valid now and name only what its
/// constraints permit.
public enum PinnedChain {
    /// Whether `chain` (DER, leaf first, as the server sent it) is acceptable for `pin`.
    public static func accepts(chain: [[UInt8]], pin: String, now: Date = Date()) -> Bool {
        guard let leafDER = chain.first, let pin = TLSFingerprint.normalized(pin) else { return false }
        if TLSFingerprint.of(der: leafDER) == pin { return true }
        guard let authorityDER = chain.dropFirst().first(where: { TLSFingerprint.of(der: $0) == pin }),
            let authority = try? Certificate(derEncoded: authorityDER), let leaf = try? Certificate(derEncoded: leafDER),
            case .isCertificateAuthority = try? authority.extensions.basicConstraints
        else { return false }
        guard leaf.issuer == authority.subject, authority.publicKey.isValidSignature(leaf.signature, for: leaf),
            leaf.notValidBefore <= now, now <= leaf.notValidAfter
        else { return false }
        guard let constraints = try? authority.extensions.nameConstraints else { return true }
        guard let scope = NameScope(constraints), let names = try? leaf.extensions.subjectAlternativeNames else { return false }
        return names.allSatisfy { name in
            switch name {
            case .dnsName(let host): scope.permits(host)
            case .ipAddress(let bytes): SubjectAlternativeName.ipAddressText(Array(bytes.bytes)).map(scope.permits) ?? false
            default: false
            }
        }
    }
}
