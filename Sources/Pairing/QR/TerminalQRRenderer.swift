/// Draws a ``QRCode`` as text for a terminal, exactly as `qrencode -t UTF8` (or `-t ANSIUTF8`) does.
///
/// Each line holds two module rows as Unicode half blocks. The glyphs paint the *light* modules, so the code
/// reads right where text is light on a dark background: light over light `█`, dark over dark ` `, dark over
/// light `▄`, light over dark `▀`. The quiet zone is `margin` columns on each side and `margin / 2` lines
/// above and below (plus the half row that pads an odd width). On a light terminal use ``Style/ansi``, which
/// forces white on black for every line, or ``invert``.
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
        let (full, empty, lower, upper) = invert ? (" ", "█", "▀", "▄") : ("█", " ", "▄", "▀")
        let (start, reset) = style == .ansi ? ("\u{1B}[40;37;1m", "\u{1B}[0m") : ("", "")
        let side = String(repeating: full, count: margin)
        let marginLine = start + String(repeating: full, count: code.width + 2 * margin) + reset + "\n"
        var output = String(repeating: marginLine, count: margin / 2)
        for row in stride(from: 0, to: code.width, by: 2) {
            output += start + side
            for column in 0..<code.width {
                let top = code.isDark(row: row, column: column)
                let bottom = code.isDark(row: row + 1, column: column)  // past the last row: light
                let glyph =
                    switch (top, bottom) {
                    case (true, true): empty
                    case (true, false): lower
                    case (false, true): upper
                    case (false, false): full
                    }
                output += glyph
            }
            output += side + reset + "\n"
        }
        output += String(repeating: marginLine, count: margin / 2)
        return output
    }
}
