import Crypto
import Foundation

/// A one-time pairing code, as shown to the user (QR, URL, terminal) and typed or scanned by a client.
///
/// Ten characters of Crockford's base32 alphabet (`0-9 A-Z` without `I L O U`): 50 bits from the system
/// CSPRNG. That is easy to read out and type, yet guessing one inside its single-use window of minutes
/// would take ~10^15 tries online. Only its SHA-256 is stored.
public struct PairingCode: Sendable, Hashable, CustomStringConvertible {
    /// The canonical code: ten upper-case characters, no separator. This is what goes into the pairing URL.
    public let code: String
    /// When the code stops working.
    public let expiresAt: Date

    /// The number of characters in a code.
    public static let length = 10
    /// Crockford's base32 alphabet: no `I`, `L`, `O`, `U`.
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    public init(code: String, expiresAt: Date) {
        self.code = code
        self.expiresAt = expiresAt
    }

    /// The code grouped for reading out: `ABCDE-FGHJK`. ``normalize(_:)`` accepts it back.
    public var grouped: String {
        let half = code.index(code.startIndex, offsetBy: min(5, code.count))
        return code[..<half] + "-" + code[half...]
    }

    /// Never the code itself: a `PairingCode` interpolated into a log line must not leak it.
    public var description: String { "PairingCode(expiresAt: \(expiresAt))" }

    /// A new random code string.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// The canonical form of something a user typed or a client sent: upper-cased, `-` and spaces removed,
    /// and Crockford's look-alikes mapped (`O`→`0`, `I`/`L`→`1`). Nil when it cannot be a pairing code (wrong
    /// length or characters), so a server can tell a code from a device token without a database lookup.
    public static func normalize(_ input: String) -> String? {
        var result = ""
        for character in input.uppercased() {
            switch character {
            case "-", " ": continue
            case "O": result.append("0")
            case "I", "L": result.append("1")
            default:
                guard alphabet.contains(character) else { return nil }
                result.append(character)
            }
            if result.count > length { return nil }
        }
        return result.count == length ? result : nil
    }

    /// SHA-256 of the canonical code: the only form the database keeps.
    static func hash(_ canonicalCode: String) -> Data {
        Data(SHA256.hash(data: Data(canonicalCode.utf8)))
    }
}
