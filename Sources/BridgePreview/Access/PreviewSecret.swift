/// The random halves of tickets and cookies, and their comparison.
///
/// A ticket or cookie is `ID.SECRET`: the id (not secret) finds the entry, the secret is compared in constant
/// time, so how long a refusal takes says nothing of how much of a guess was right.
public enum PreviewSecret {
    /// `ID.SECRET` from fresh random bytes: a 16-character id and a 43-character secret (256 bits), both URL-
    /// and cookie-safe (base64url without padding).
    public static func make() -> (id: String, secret: String) {
        var generator = SystemRandomNumberGenerator()
        return (
            encode((0..<12).map { _ in UInt8.random(in: .min ... .max, using: &generator) }),
            encode((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        )
    }

    /// `value` split at its one dot; nil when it is not `ID.SECRET` of plausible lengths.
    public static func split(_ value: some StringProtocol) -> (id: String, secret: String)? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...64).contains(parts[0].utf8.count), (1...128).contains(parts[1].utf8.count) else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    /// True when both hold the same bytes; runs over the longer input in full.
    public static func equals(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        var difference: UInt8 = left.count == right.count ? 0 : 1
        for index in 0..<max(left.count, right.count) {
            difference |= (index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }

    static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0...chunk.count { out.append(alphabet[Int(value >> (18 - 6 * UInt32(position)) & 63)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
