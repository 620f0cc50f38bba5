import ArgumentParser
import BridgeOps

/// A positive duration on the command line, in the one grammar of ``DurationText``: `90s`, `10m`, `1h`, `500ms`,
/// `1.5m`, `7d`, or a plain number of seconds.
struct DurationArgument: ExpressibleByArgument, Hashable, CustomStringConvertible {
    /// The parsed value.
    var duration: Duration
    /// As given, for help and messages.
    var text: String

    init(_ duration: Duration, text: String) {
        self.duration = duration
        self.text = text
    }

    init?(argument: String) {
        guard let duration = DurationText.parse(argument) else { return nil }
        self.init(duration, text: argument)
    }

    var description: String { text }
    var defaultValueDescription: String { text }
}
