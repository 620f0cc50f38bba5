/// The modules a JavaScript file imports statically, found by a scan of its UTF-8 bytes: `from './x.js'` ends
/// every `import … from` (one line or several), and a bare `import './x.js'` starts its line; a dynamic
/// `import('./x.js')` is neither. A byte scan, not a `Regex`: the regex this replaced (with `\b` and multi-line
/// anchors) took a third of `serve`'s start-up CPU on the first-paint modules (P6, 2026-12-02).
enum StaticImports {
    /// The names (`x.js`) in the order they appear.
    static func modules(in text: String) -> [String] {
        let bytes = Array(text.utf8)
        var found: [String] = []
        var index = 0
        while index < bytes.count {
            if let after = keyword("from", in: bytes, at: index), index == 0 || !isWord(bytes[index - 1]) {
                if let name = quotedModule(in: bytes, at: skipSpace(bytes, from: after)) { found.append(name) }
                index = after
            } else if let after = keyword("import", in: bytes, at: index), startsLine(bytes, at: index) {
                if let name = quotedModule(in: bytes, at: skipSpace(bytes, from: after)) { found.append(name) }
                index = after
            } else {
                index += 1
            }
        }
        return found
    }

    /// The index after `word` when it is spelled at `index`.
    private static func keyword(_ word: StaticString, in bytes: [UInt8], at index: Int) -> Int? {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return nil }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
        return index + count
    }

    /// `'./name.js'` or `"./name.js"` at `index` (a name of letters, digits, `.`, `_` and `-`): the name.
    private static func quotedModule(in bytes: [UInt8], at index: Int) -> String? {
        guard index + 2 < bytes.count, bytes[index] == UInt8(ascii: "'") || bytes[index] == UInt8(ascii: "\""),
            bytes[index + 1] == UInt8(ascii: "."), bytes[index + 2] == UInt8(ascii: "/")
        else { return nil }
        var end = index + 3
        while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
        guard end < bytes.count, bytes[end] == bytes[index] else { return nil }
        let name = String(decoding: bytes[(index + 3)..<end], as: UTF8.self)
        return name.count > 3 && name.hasSuffix(".js") ? name : nil
    }

    /// Whether only spaces and tabs stand between the line's start and `index`.
    private static func startsLine(_ bytes: [UInt8], at index: Int) -> Bool {
        var before = index - 1
        while before >= 0, bytes[before] == UInt8(ascii: " ") || bytes[before] == UInt8(ascii: "\t") { before -= 1 }
        return before < 0 || bytes[before] == UInt8(ascii: "\n") || bytes[before] == UInt8(ascii: "\r")
    }

    private static func skipSpace(_ bytes: [UInt8], from index: Int) -> Int {
        var index = index
        while index < bytes.count, [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains(bytes[index]) {
            index += 1
        }
        return index
    }

    private static func isWord(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isWord(byte) && byte != UInt8(ascii: "$") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }
}
