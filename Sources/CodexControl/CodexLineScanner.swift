import BridgeProtocol
import Foundation

/// What a scan of one notification line found: the method, the params exactly as written, and the two
/// params members a relay needs, without building a `JSONValue` tree.
struct CodexLineScan: Equatable {
    /// Byte range of the `method` string's contents (no escapes in it).
    var method: Range<Int>
    /// Byte range of the `params` object, braces included (valid JSON).
    var params: Range<Int>
    /// Byte range of the contents of `params.threadId` when it is a string.
    var threadId: Range<Int>?
    /// Byte range of the contents of `params.turnId` when it is a string.
    var turnId: Range<Int>?
    /// Whether the contents of `threadId` / `turnId` hold escapes (decode them before use).
    var idsEscaped = false
    /// `params` has a `thread` member (where the thread id and cwd live in other messages).
    var hasThread = false
    /// `params` has a `turn` member (where the turn id lives in other messages).
    var hasTurn = false
}

/// Checks that one line of Codex's stdout is a valid JSON object and, when it is a notification (a string
/// `method`, no `id` or a null one, object `params`), returns where its parts are.
///
/// The whole line is validated (RFC 8259: strings, escapes, numbers, literals, nesting) so the params text
/// may be relayed as is. Nil means "not a notification this scan can vouch for": not JSON, a request or an
/// answer, a key or method with escapes, a duplicated member of interest; the caller then parses the line
/// fully, which decides exactly as before.
struct CodexLineScanner {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Scans one line (no newline).
    static func scanNotification(_ bytes: UnsafeRawBufferPointer) -> CodexLineScan? {
        var scanner = CodexLineScanner(bytes)
        return scanner.scanLine()
    }

    private mutating func scanLine() -> CodexLineScan? {
        skipWhitespace()
        guard peek == UInt8(ascii: "{") else { return nil }
        index += 1
        var method: Range<Int>?
        var params: Range<Int>?
        var paramsScan: CodexLineScan?
        var hasID = false
        var first = true
        while true {
            skipWhitespace()
            if first, peek == UInt8(ascii: "}") {
                index += 1
                break
            }
            first = false
            guard let key = scanKey() else { return nil }
            switch key {
            case .method:
                guard method == nil, peek == UInt8(ascii: "\"") else { return nil }
                guard let (contents, escaped) = scanString(), !escaped else { return nil }
                method = contents
            case .params:
                guard params == nil, peek == UInt8(ascii: "{") else { return nil }
                let start = index
                guard let scan = scanParams() else { return nil }
                params = start..<index
                paramsScan = scan
            case .id:
                guard !hasID else { return nil }
                hasID = true
                if peek == UInt8(ascii: "n") {
                    guard literal("null") else { return nil }
                    hasID = false
                } else {
                    guard skipValue(depth: 1) else { return nil }
                    return nil  // a request or an answer: parsed fully
                }
            case .other:
                guard skipValue(depth: 1) else { return nil }
            }
            skipWhitespace()
            guard let byte = peek else { return nil }
            index += 1
            if byte == UInt8(ascii: ",") { continue }
            guard byte == UInt8(ascii: "}") else { return nil }
            break
        }
        skipWhitespace()
        guard index == bytes.count, let method, let params, var scan = paramsScan else { return nil }
        scan.method = method
        scan.params = params
        return scan
    }

    private enum Key { case method, params, id, other }

    /// A member name and its colon; nil on bad JSON or an escaped name (rare: the full parser decides).
    private mutating func scanKey() -> Key? {
        guard peek == UInt8(ascii: "\""), let (range, escaped) = scanString(), !escaped else { return nil }
        skipWhitespace()
        guard peek == UInt8(ascii: ":") else { return nil }
        index += 1
        skipWhitespace()
        if equals(range, "method") { return .method }
        if equals(range, "params") { return .params }
        if equals(range, "id") { return .id }
        return .other
    }

    /// The params object: validated, with `threadId`, `turnId` found among its own members.
    private mutating func scanParams() -> CodexLineScan? {
        index += 1  // {
        var scan = CodexLineScan(method: 0..<0, params: 0..<0)
        var first = true
        while true {
            skipWhitespace()
            if first, peek == UInt8(ascii: "}") {
                index += 1
                return scan
            }
            first = false
            guard peek == UInt8(ascii: "\""), let (name, nameEscaped) = scanString(), !nameEscaped else { return nil }
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { return nil }
            index += 1
            skipWhitespace()
            if equals(name, "threadId") || equals(name, "turnId") {
                let isThread = equals(name, "threadId")
                guard (isThread ? scan.threadId : scan.turnId) == nil else { return nil }
                if peek == UInt8(ascii: "\"") {
                    guard let (contents, escaped) = scanString() else { return nil }
                    if isThread { scan.threadId = contents } else { scan.turnId = contents }
                    scan.idsEscaped = scan.idsEscaped || escaped
                } else {
                    // Not a string (null, a number): the full parser decides what that means.
                    return nil
                }
            } else {
                if equals(name, "thread") { scan.hasThread = true }
                if equals(name, "turn") { scan.hasTurn = true }
                guard skipValue(depth: 2) else { return nil }
            }
            skipWhitespace()
            guard let byte = peek else { return nil }
            index += 1
            if byte == UInt8(ascii: ",") { continue }
            guard byte == UInt8(ascii: "}") else { return nil }
            return scan
        }
    }

    // MARK: Validation

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func equals(_ range: Range<Int>, _ word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount else { return false }
        return memcmp(bytes.baseAddress! + range.lowerBound, word.utf8Start, range.count) == 0
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count, memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0 else { return false }
        index += count
        return true
    }

    /// Skips one valid JSON value; false when it is not one.
    private mutating func skipValue(depth: Int) -> Bool {
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

    private mutating func skipContainer(close: UInt8, members: Bool, depth: Int) -> Bool {
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
    private mutating func scanString() -> (Range<Int>, Bool)? {
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

    private mutating func hex4() -> UInt32? {
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

    private mutating func skipNumber() -> Bool {
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

    private mutating func skipDigits() {
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
    }
}
