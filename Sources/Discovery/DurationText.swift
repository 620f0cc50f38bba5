/// Parses durations as typed on a command line: `3s`, `500ms`, `1.5s`, `2m`, or a bare number of seconds.
public enum DurationText {
    /// The duration `text` names, or nil if it is not a positive duration in one of the accepted forms.
    public static func parse(_ text: String) -> Duration? {
        let trimmed = text.trimmingWhitespace().lowercased()
        let units: [(suffix: String, milliseconds: Double)] = [("ms", 1), ("s", 1000), ("m", 60_000)]
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
        let milliseconds = value * scale
        guard milliseconds >= 1, milliseconds <= 86_400_000 else { return nil }
        return .milliseconds(Int64(milliseconds.rounded()))
    }
}
