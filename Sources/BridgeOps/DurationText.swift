import Foundation

/// The one duration grammar of the command line and `config.toml`: a positive number with a unit, `500ms`,
/// `90s`, `1.5s`, `10m`, `1h`, `7d`, or a bare number of seconds; at least one millisecond.
public enum DurationText {
    /// The duration `text` names, or nil if it is not a positive duration in one of the accepted forms.
    public static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        // "ms" before "m" and "s": the first matching suffix wins.
        let units: [(suffix: String, milliseconds: Double)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        var number = Substring(trimmed)
        var scale = 1000.0
        for unit in units where trimmed.hasSuffix(unit.suffix) {
            number = trimmed.dropLast(unit.suffix.count)
            scale = unit.milliseconds
            break
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let value = Double(number), value.isFinite, value > 0
        else { return nil }
        let milliseconds = (value * scale).rounded()
        guard milliseconds >= 1, milliseconds < Double(Int64.max) else { return nil }
        return .milliseconds(Int64(milliseconds))
    }
}
