/// Draws a ``QRCode`` as text for a terminal, exactly as `qrencode -t UTF8` (or `-t ANSIUTF8`) does.
///
/// Each line holds two module rows as Unicode half blocks. The glyphs paint the *light* modules, so the code
/// reads right where text is light on a dark background: light over light `█`, dark over dark ` `, dark over
/// light `▄`, light over dark `▀`. The quiet zone is `margin` modules on every side: `margin` columns left and
/// right, and `margin` module rows above and below, drawn two to a line like the symbol's own (an odd count of
/// rows in all is padded with a light half row at the bottom). For an even margin that is what qrencode draws.
/// On a light terminal use ``Style/ansi``, which forces white on black for every line, or ``invert``.
public struct TerminalQRRenderer: Sendable, Hashable {
    /// How lines are coloured.
    public enum Style: Sendable, Hashable {
        /// The terminal's own colours (`qrencode -t UTF8`).
        case plain
        /// Every line wrapped in `ESC[40;37;1m … ESC[0m` (`qrencode -t ANSIUTF8`): reads on any background.
        case ansi
    }

    /// Quiet zone width in modules (4 is the QR standard's minimum).
    public var margin: Int
    /// Swap light and dark glyphs, for dark text on a light background (`--invert`).
    public var invert: Bool
    /// Plain or ANSI-coloured lines.
    public var style: Style

    public init(margin: Int = 4, invert: Bool = false, style: Style = .plain) {
        self.margin = max(0, margin)
        self.invert = invert
        self.style = style
    }

    /// The drawing, one line per two module rows, each line ending in `\n`.
    public func render(_ code: QRCode) -> String {
        lines(code).map { $0 + "\n" }.joined()
    }

    /// The drawing's lines, without their newlines, each ``width(of:)`` characters (escape codes aside).
    public func lines(_ code: QRCode) -> [String] {
        let (full, empty, lower, upper) = invert ? (" ", "█", "▀", "▄") : ("█", " ", "▄", "▀")
        let (start, reset) = style == .ansi ? ("\u{1B}[40;37;1m", "\u{1B}[0m") : ("", "")
        let span = -margin..<(code.width + margin)
        return stride(from: -margin, to: code.width + margin, by: 2).map { row in
            // Outside the symbol (the quiet zone, the padding half row) isDark is false: light.
            let glyphs = span.map { column in
                switch (code.isDark(row: row, column: column), code.isDark(row: row + 1, column: column)) {
                case (true, true): empty
                case (true, false): lower
                case (false, true): upper
                case (false, false): full
                }
            }
            return start + glyphs.joined() + reset
        }
    }

    /// How many columns a drawing of `code` takes.
    public func width(of code: QRCode) -> Int { code.width + 2 * margin }
}
