import Crypto

/// A TLS certificate fingerprint to pin: the SHA-256 of a certificate's DER encoding, as 64 lowercase hex
/// digits (the pairing URL's `fp`): the workstation's CA (`serve --tls`), or the leaf itself (`--tls-cert`).
///
/// A pinned connection trusts exactly this certificate as its only root, whoever else signed it, and ignores
/// the host name: the pairing URL already says which bridge this is. When it is a CA, the leaf must be issued
/// by it and name only what the CA's constraints permit.
public struct CertificatePin: Sendable, Hashable, CustomStringConvertible {
    /// 64 lowercase hex digits.
    public let fingerprint: String

    /// A pin from `AB:CD:…`, `abcd…` or `sha256:abcd…`; nil unless it is 32 bytes of hex.
    public init?(fingerprint text: String) {
        var hex = text.lowercased().filter { $0 != ":" && $0 != " " }
        if hex.hasPrefix("sha256") { hex = String(hex.dropFirst(6).drop { $0 == "=" || $0 == "-" }) }
        guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else { return nil }
        self.fingerprint = hex
    }

    /// The fingerprint of a DER-encoded certificate.
    public static func fingerprint(ofDER der: some Sequence<UInt8>) -> String {
        SHA256.hash(data: Array(der)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// Whether `der` is the pinned certificate.
    public func matches(certificateDER der: some Sequence<UInt8>) -> Bool {
        Self.fingerprint(ofDER: der) == fingerprint
    }

    /// Throws ``BridgeClientError`` `pinMismatch` unless `der` is the pinned certificate.
    public func check(certificateDER der: some Sequence<UInt8>) throws(BridgeClientError) {
        let actual = Self.fingerprint(ofDER: der)
        guard actual == fingerprint else { throw .pinMismatch(expected: fingerprint, actual: actual) }
    }

    public var description: String { fingerprint }
}
