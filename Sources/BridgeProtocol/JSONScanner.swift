import Foundation

/// A validating cursor over JSON text that finds where values are without building a ``JSONValue`` tree:
/// the primitives of the relay paths' scanners (Codex's notification lines, a linked bridge's event frames).
/// Validation follows RFC 8259 (strings and their escapes, numbers, literals, nesting up to
/// ``JSONValue/maxParseDepth``), so a value it skipped may be passed on as text.
public struct JSONScanner {
    @usableFromInline let bytes: UnsafeRawBufferPointer
    /// The byte the scanner is at.
    public var index = 0

    @inlinable public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    @inlinable public var peek: UInt8? { index < bytes.count ? bytes[index] : nil }
    @inlinable public var atEnd: Bool { index == bytes.count }

    /// Whether `range` holds exactly `word`.
    @inlinable public func equals(_ range: Range<Int>, _ word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount else { return false }
        return memcmp(bytes.baseAddress! + range.lowerBound, word.utf8Start, range.count) == 0
    }

    @inlinable public mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Consumes `word` when it comes next.
    @inlinable public mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count, memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0 else { return false }
        index += count
        return true
    }

    /// Consumes `byte` (after whitespace) when it comes next.
    @inlinable public mutating func expect(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard peek == byte else { return false }
        index += 1
        return true
    }

    /// A member name and its colon (the scanner on the name's quote): the name's range and whether it has
    /// escapes; nil on bad JSON.
    @inlinable public mutating func scanKey() -> (Range<Int>, Bool)? {
        guard peek == UInt8(ascii: "\""), let key = scanString() else { return nil }
        guard expect(UInt8(ascii: ":")) else { return nil }
        skipWhitespace()
        return key
    }

    /// After a member's value: true at a `,` (another member follows), false at the closing `}` (consumed); nil
    /// on anything else.
    @inlinable public mutating func nextMember() -> Bool? {
        skipWhitespace()
        guard let byte = peek else { return nil }
        index += 1
        if byte == UInt8(ascii: ",") { return true }
        return byte == UInt8(ascii: "}") ? false : nil
    }

    /// Skips one valid JSON value; false when it is not one.
    @inlinable public mutating func skipValue(depth: Int) -> Bool {
        guard depth < JSONValue.maxParseDepth, let byte = peek else { return false }
        switch byte {
        case UInt8(ascii: "\""): return scanString() != nil
        case UInt8(ascii: "{"): return skipContainer(close: UInt8(ascii: "}"), members: true, depth: depth)
        case UInt8(ascii: "["): return skipContainer(close: UInt8(ascii: "]"), members: false, depth: depth)
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return skipNumber()
        }
    }

    @inlinable mutating func skipContainer(close: UInt8, members: Bool, depth: Int) -> Bool {
        index += 1
        skipWhitespace()
        if peek == close {
            index += 1
            return true
        }
        while true {
            skipWhitespace()
            if members {
                guard peek == UInt8(ascii: "\""), scanString() != nil else { return false }
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { return false }
                index += 1
                skipWhitespace()
            }
            guard skipValue(depth: depth + 1) else { return false }
            skipWhitespace()
            guard let byte = peek else { return false }
            index += 1
            if byte == UInt8(ascii: ",") { continue }
            return byte == close
        }
    }

    /// A string at `index` (on its opening quote): the range of its contents and whether it has escapes.
    @inlinable public mutating func scanString() -> (Range<Int>, Bool)? {
        index += 1
        let start = index
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return (start..<index - 1, escaped)
            }
            guard byte >= 0x20 else { return nil }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                index += 1
                guard let escape = peek else { return nil }
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 1
                case UInt8(ascii: "u"):
                    index += 1
                    guard let scalar = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                        else { return nil }
                        index += 2
                        guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        return nil
                    }
                default:
                    return nil
                }
                continue
            }
            index += 1
        }
        return nil
    }

    @inlinable mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// Skips a number; false when there is none.
    @inlinable public mutating func skipNumber() -> Bool {
        if peek == UInt8(ascii: "-") { index += 1 }
        let digits = index
        skipDigits()
        guard index > digits else { return false }
        if bytes[digits] == UInt8(ascii: "0"), index - digits > 1 { return false }
        if peek == UInt8(ascii: ".") {
            index += 1
            let fraction = index
            skipDigits()
            guard index > fraction else { return false }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            let exponent = index
            skipDigits()
            guard index > exponent else { return false }
        }
        return true
    }

    @inlinable mutating func skipDigits() {
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
    }

    /// The text of `range`.
    @inlinable public func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}
