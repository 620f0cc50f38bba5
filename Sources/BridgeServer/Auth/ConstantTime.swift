/// Comparison whose running time does not depend on where two secrets differ.
enum ConstantTime {
    /// True when `lhs` and `rhs` hold the same bytes. Runs over the longer input in full; only the lengths
    /// (public: tokens have a fixed length) influence timing.
    static func equals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        let left = Array(lhs)
        let right = Array(rhs)
        let count = max(left.count, right.count)
        var difference: UInt8 = left.count == right.count ? 0 : 1
        for index in 0..<count {
            let a = index < left.count ? left[index] : 0
            let b = index < right.count ? right[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }

    /// String convenience over the UTF-8 bytes.
    static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equals(Array(lhs.utf8), Array(rhs.utf8))
    }
}
