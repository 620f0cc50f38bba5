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
    private var json: JSONScanner

    private init(_ bytes: UnsafeRawBufferPointer) {
        json = JSONScanner(bytes)
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
        guard atEnd, let method, let params, var scan = paramsScan else { return nil }
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

    // The scanner's primitives (``JSONScanner``).
    private var index: Int {
        get { json.index }
        set { json.index = newValue }
    }
    private var peek: UInt8? { json.peek }
    private func equals(_ range: Range<Int>, _ word: StaticString) -> Bool { json.equals(range, word) }
    private mutating func skipWhitespace() { json.skipWhitespace() }
    private mutating func literal(_ word: StaticString) -> Bool { json.literal(word) }
    private mutating func skipValue(depth: Int) -> Bool { json.skipValue(depth: depth) }
    private mutating func scanString() -> (Range<Int>, Bool)? { json.scanString() }
    private var atEnd: Bool { json.atEnd }
}
