import Foundation

/// The one way the commands and `serve` write text to a terminal (issue 44: `machines add URL` printed what the
/// other bridge sent raw: OSC 52 clipboard writes, window titles, erased lines). Everything written here passes
/// the escaping rule of ``ControlCharacters`` (C0 and C1 controls, ESC and so CSI and OSC sequences, DEL, bidi
/// overrides and marks, zero-width and other format characters, line and paragraph separators are shown as
/// `\u{…}`), keeping only the text's own line breaks and tabs. A value from the network inside a line goes
/// through ``field(_:)`` first, which escapes its line breaks too, so it cannot start a line of its own.
///
/// The pairing QR (``ControlCharacters`` would show its colours as text) is the one thing written otherwise:
/// its lines are the bridge's own drawing.
public enum Terminal {
    /// A value from the network (a name, an id, a check code, a message another bridge or a phone chose), as it
    /// may stand inside a line: every character of the rule escaped, line breaks included.
    public static func field(_ text: String) -> String {
        ControlCharacters.escaped(text)
    }

    /// `text` as it reaches the terminal.
    public static func rendered(_ text: String) -> String {
        ControlCharacters.escaped(text, keepingLines: true)
    }

    /// Writes `text` and a line break on standard output.
    public static func say(_ text: String) {
        write(text + "\n", to: .standardOutput)
    }

    /// Writes `text` on standard output as it is (a prompt that waits on the same line, streamed text).
    public static func write(_ text: String) {
        write(text, to: .standardOutput)
    }

    /// Writes the bridge's own drawing (the pairing QR, whose `--ansi` colours are escape sequences) as it is.
    /// Nothing from the network may be in it.
    public static func drawing(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Writes `text` on standard error, ending its line.
    public static func warn(_ text: String) {
        write(text.hasSuffix("\n") ? text : text + "\n", to: .standardError)
    }

    private static func write(_ text: String, to handle: FileHandle) {
        handle.write(Data(rendered(text).utf8))
    }
}
