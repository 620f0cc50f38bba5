/// Shows control characters as escapes, so that untrusted text (a device name, an agent's output, a
/// repository's file name) can neither forge lines in a log nor drive the terminal that shows it (cursor
/// moves, colours, title changes, OSC 52 clipboard writes, hyperlinks, bidi reordering).
public enum ControlCharacters {
    /// `text` with every C0/C1 control character, DEL, the Unicode line/paragraph separators and bidi overrides
    /// written as `\u{…}` (`\n`, `\r`, `\t` as such). With `keepingLines`, newlines and tabs stay as they are
    /// and `\r\n` becomes `\n` (for a terminal that shows the text).
    public static func escaped(_ text: String, keepingLines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) }) else { return text }
        var out = ""
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            switch scalar {
            case "\n": out += keepingLines ? "\n" : "\\n"
            case "\t": out += keepingLines ? "\t" : "\\t"
            case "\r" where keepingLines && pending == "\n": continue
            case "\r": out += "\\r"
            case _ where needsEscape(scalar): out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
            || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}
