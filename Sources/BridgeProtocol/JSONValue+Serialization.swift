/// Writes JSON text directly, for the relay's hot path (`JSONEncoder` on `JSONValue` costs several times more).
///
/// Output matches `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes`: members in key order, `"`,
/// `\` and control characters escaped, integral numbers without a fraction.
extension JSONValue {
    /// This value as compact JSON text.
    public var jsonText: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends this value as compact JSON text.
    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .number(let value): Self.writeNumber(value, to: &out)
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let values):
            out += "["
            var first = true
            for value in values {
                if !first { out += "," }
                first = false
                value.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            var first = true
            for key in members.keys.sorted() {
                if !first { out += "," }
                first = false
                Self.writeString(key, to: &out)
                out += ":"
                members[key]!.write(to: &out)
            }
            out += "}"
        }
    }

    static func writeNumber(_ value: Double, to out: inout String) {
        if value.rounded() == value, abs(value) < 1e15 {
            out += String(Int64(value))
        } else if value.isFinite {
            out += "\(value)"
        } else {
            out += "null"
        }
    }

    /// Appends `value` as a JSON string literal.
    public static func writeString(_ value: String, to out: inout String) {
        out += "\""
        var needsEscape = false
        for byte in value.utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            needsEscape = true
            break
        }
        guard needsEscape else {
            out += value
            out += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
