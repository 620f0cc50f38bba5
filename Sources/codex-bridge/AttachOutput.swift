import BridgeOps
import Foundation

/// `attach`'s terminal: whole lines, and the agent's streamed text, which may stop mid-line.
struct AttachOutput {
    /// Whether the last text written did not end its line.
    private var midLine = false

    /// Prints `text` as a line of its own.
    mutating func say(_ text: String) {
        endLine()
        write(text + "\n")
    }

    /// Prints streamed text (a delta of the agent's message or a command's output) as it comes.
    mutating func stream(_ text: String) {
        write(text)
        midLine = !text.hasSuffix("\n")
    }

    /// Ends the streamed line, if one is unfinished.
    mutating func endLine() {
        if midLine {
            write("\n")
            midLine = false
        }
    }

    /// A duration as `2.5s`.
    static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.1fs", value)
    }

    /// Everything attach prints goes through here, and so through ``Terminal``: agent and command output is
    /// hostile (prompt injection), so terminal control sequences are shown escaped, never sent to the terminal.
    private func write(_ text: String) {
        Terminal.write(text)
    }
}
