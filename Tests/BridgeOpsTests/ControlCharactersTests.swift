import Foundation
import Testing

@testable import BridgeOps

@Suite struct ControlCharactersTests {
    /// Regression (issue 31, finding 6): only C0/C1 controls, the line/paragraph separators and the bidi overrides
    /// were escaped; other format characters (zero-width ones, the soft hyphen, the BOM, the Arabic letter mark,
    /// tag characters) reached the terminal raw, where they hide or disguise text a device chose.
    @Test(arguments: [
        0x00, 0x07, 0x1B, 0x7F, 0x85, 0x9B, 0xAD, 0x061C, 0x180E, 0x200B, 0x200D, 0x200E, 0x2028, 0x2029, 0x202E, 0x2060,
        0x2066, 0xFEFF, 0xFFF9, 0xE0001, 0xE0041,
    ])
    func everyControlAndFormatCharacterIsEscaped(value: UInt32) throws {
        let scalar = try #require(Unicode.Scalar(value))
        let text = "a" + String(Character(scalar)) + "b"
        let escaped = ControlCharacters.escaped(text)
        #expect(!escaped.unicodeScalars.contains(scalar), "U+\(String(value, radix: 16))")
        #expect(escaped.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F })
        #expect(escaped == "a\\u{\(String(value, radix: 16, uppercase: true))}b")
    }

    @Test func letterMarksAndSymbolsStay() {
        for text in ["café", "日本語", "🚀", "e\u{301}", "Ana’s iPhone", "naïve — ok", "x\\u{1B}y"] {
            #expect(ControlCharacters.escaped(text) == text, "\(text)")
        }
    }

    /// The same rule for JSON: `\uXXXX` escapes (surrogate pairs beyond the BMP) that decode to the very same string.
    @Test func jsonKeepsTheValueAndShowsNoControlCharacter() throws {
        let hostile = "\u{1B}]52;c;aGk=\u{07}\u{9B}31m\u{202E}gnp.exe\u{200B}\u{E0041}\u{7F}"
        let json = String(decoding: try JSONEncoder().encode(["name": hostile]), as: UTF8.self)
        let shown = ControlCharacters.jsonEscaped(json)
        #expect(!shown.unicodeScalars.contains { ControlCharacters.needsEscape($0) })
        #expect(shown.contains(#"\u202e"#) && shown.contains(#"\udb40\udc41"#))
        let decoded = try JSONDecoder().decode([String: String].self, from: Data(shown.utf8))
        #expect(decoded["name"] == hostile)
    }
}
