import BridgeOps

/// A positive duration on the command line, in the one grammar of ``DurationText``: `90s`, `10m`, `1h`, `500ms`,
/// `1.5m`, `7d`, or a plain number of seconds.
package struct DurationArgument: Hashable, Sendable, CustomStringConvertible {
    /// The parsed value.
    package var duration: Duration
    /// As given, for help and messages.
    package var text: String

    package init(_ duration: Duration, text: String) {
        self.duration = duration
        self.text = text
    }

    package init?(argument: String) {
        guard let duration = DurationText.parse(argument) else { return nil }
        self.init(duration, text: argument)
    }

    package var description: String { text }
    package var defaultValueDescription: String { text }
}
