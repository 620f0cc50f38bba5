/// Removes terminal escape sequences from a line Codex wrote to its stderr before the bridge logs it. Codex
/// styles its log lines for a terminal (tracing's ANSI colours: `ESC[2m2026-…ESC[0m ESC[32m INFO ESC[0m …`) even
/// into the bridge's pipe; the log handlers would show each ESC escaped (`\u{1B}[2m`), which is noise in every
/// line. The styles carry nothing, so they go; so do title, clipboard (OSC 52) and other string sequences. What
/// is left is text; any other control character in it is still escaped by the log handler.
public enum TerminalEscapes {
    /// `line` without CSI (`ESC [`, or C1 `0x9B`, up to a final byte `@`–`~`), OSC/DCS/SOS/PM/APC strings (up to
    /// BEL or `ESC \`), and other two- or three-character `ESC` sequences. An unfinished sequence at the end goes too.
    public static func stripped(_ line: String) -> String {
        guard line.unicodeScalars.contains(where: { $0 == "\u{1B}" || $0 == "\u{9B}" }) else { return line }
        var kept = String.UnicodeScalarView()
        var scalars = line.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            switch scalar {
            case "\u{9B}": skipControlSequence(&scalars)
            case "\u{1B}":
                guard let next = scalars.next() else { break }
                switch next {
                case "[": skipControlSequence(&scalars)
                case "]", "P", "X", "^", "_": skipString(&scalars)
                // nF sequences (`ESC ( B`: intermediates, then one final character).
                case "\u{20}"..."\u{2F}":
                    while let more = scalars.next(), ("\u{20}"..."\u{2F}").contains(more) {}
                default: break  // `ESC 7`, `ESC c`, …: the one character after ESC
                }
            default: kept.append(scalar)
            }
        }
        return String(kept)
    }

    /// Parameters and intermediates up to and including the final byte.
    private static func skipControlSequence(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next(), !("\u{40}"..."\u{7E}").contains(scalar) {}
    }

    /// Up to and including BEL or the string terminator (`ESC \`, or C1 `0x9C`).
    private static func skipString(_ scalars: inout String.UnicodeScalarView.Iterator) {
        while let scalar = scalars.next() {
            if scalar == "\u{07}" || scalar == "\u{9C}" { return }
            if scalar == "\u{1B}" {
                _ = scalars.next()
                return
            }
        }
    }
}
