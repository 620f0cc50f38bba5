import Crypto

/// The fingerprint a client pins: SHA-256 of the certificate's DER encoding, 64 lowercase hex digits, no
/// colons (e.g. `3b1f…9ac0`).
public enum TLSFingerprint {
    /// The fingerprint of a DER-encoded certificate.
    public static func of(der: some Sequence<UInt8>) -> String {
        SHA256.hash(data: Array(der)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// `text` in the canonical form (lowercase, colons and spaces dropped), or nil when it is not 64 hex digits.
    /// Accepts the `AB:CD:…` form that `openssl x509 -fingerprint -sha256` prints.
    public static func normalized(_ text: String) -> String? {
        let hex = text.lowercased().filter { $0 != ":" && $0 != " " }
        guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else { return nil }
        return hex
    }
}
