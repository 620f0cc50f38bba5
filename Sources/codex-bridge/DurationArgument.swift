import ArgumentParser
import Foundation

/// A positive duration on the command line: `90s`, `10m`, `1h`, `500ms`, `1.5m`, or a plain number of seconds.
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
        let text = argument.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400)]
        var number = Substring(text)
        var scale = 1.0
        // "ms" before "m" and "s": the first matching suffix wins.
        for unit in units where text.hasSuffix(unit.suffix) {
            number = text.dropLast(unit.suffix.count)
            scale = unit.seconds
            break
        }
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0 else { return nil }
        let milliseconds = (value * scale * 1000).rounded()
        guard milliseconds >= 1, milliseconds < Double(Int64.max) else { return nil }
        self.init(.milliseconds(Int64(milliseconds)), text: argument)
    }

    var description: String { text }
    var defaultValueDescription: String { text }
}
