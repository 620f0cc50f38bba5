/// Shows control and format characters as escapes, so that untrusted text (a device name, a thread id, a
/// directory a phone sent, an agent's output, a repository's file name) can neither forge lines in a log nor
/// drive or disguise the terminal that shows it (cursor moves, colours, title changes, OSC 52 clipboard writes,
/// hyperlinks, bidi reordering, zero-width and invisible characters).
///
/// The one rule, for every string a terminal command prints from the store and for the text logs: a scalar of
/// the Unicode general categories Cc (controls, C0 and C1, DEL), Cf (format: bidi marks and overrides, zero-width
/// characters, the soft hyphen, the BOM, tag characters…), Zl and Zp (line and paragraph separators) is shown as
/// `\u{…}` (``escaped(_:keepingLines:)``) or, in JSON, as `\uXXXX` (``jsonEscaped(_:)``).
public enum ControlCharacters {
    /// `text` with every character of the rule written as `\u{…}` (`\n`, `\r`, `\t` as such). With
    /// `keepingLines`, newlines and tabs stay as they are and `\r\n` becomes `\n` (for a terminal that shows the
    /// text).
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

    /// JSON text (as `JSONEncoder` writes it) with every character of the rule written as a JSON `\uXXXX`
    /// escape (a surrogate pair beyond the BMP): still valid JSON that decodes to the same strings, but nothing
    /// in it acts on a terminal. (`JSONEncoder` escapes only U+0000–U+001F.) Outside strings JSON holds only
    /// ASCII punctuation and its whitespace (newlines, tabs, spaces), which stay; inside strings the encoder
    /// has escaped those already, so every other character of the rule stands inside a string.
    public static func jsonEscaped(_ json: String) -> String {
        let escape = { (scalar: Unicode.Scalar) in scalar != "\n" && scalar != "\r" && scalar != "\t" && needsEscape(scalar) }
        guard json.unicodeScalars.contains(where: escape) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            guard escape(scalar) else {
                out.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                out.append(contentsOf: "\\u\(String(repeating: "0", count: 4 - hex.count))\(hex)".unicodeScalars)
            }
        }
        return String(out)
    }

    /// Whether `scalar` is in the rule: general category Cc, Cf, Zl or Zp.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        // Printable ASCII, the common case, without a property lookup.
        if scalar.value >= 0x20 && scalar.value < 0x7F { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }
}
