/// The range of a numeric `serve` setting (declared with the setting, ``ServeSetting/descriptor``), used for the flag
/// and for its config.toml key alike: out of range is one line naming the flag (exit 2) or the file, line and key
/// (exit 1), never a crash later (`--hello-timeout inf` once ended in SIGILL).
package enum SettingLimits {
    /// A closed range and its unit, for messages.
    package struct Limit<Value: Comparable & Sendable>: Sendable {
        let range: ClosedRange<Value>
        let unit: String
        /// Also accepted outside `range` (e.g. 0 = off).
        var also: Value?

        func problem(_ value: Value) -> String? {
            if let also, value == also { return nil }
            guard range.contains(value) else {
                let off = also.map { " (or \($0) to turn it off)" } ?? ""
                return "must be between \(range.lowerBound) and \(range.upperBound) \(unit)\(off), not \(value)"
            }
            return nil
        }

        /// `0.5–300`, for the README and `--help`.
        var rangeText: String { "\(SettingLimits.text(range.lowerBound))–\(SettingLimits.text(range.upperBound))" }
    }

    /// Whole seconds as the duration grammar writes them: `3650d`, `12h`, `90s`.
    package static func durationText(seconds: Int64) -> String {
        for (unit, length) in [("d", Int64(86_400)), ("h", 3600), ("m", 60)] where seconds != 0 && seconds % length == 0 {
            return "\(seconds / length)\(unit)"
        }
        return "\(seconds)s"
    }

    /// A number as people write it: `300`, not `300.0`.
    package static func text(_ value: some Sendable) -> String {
        if let double = value as? Double, double == double.rounded(), abs(double) < 1e15 { return String(Int64(double)) }
        return "\(value)"
    }
}

extension SettingLimits.Limit<Int64> {
    /// A range of whole seconds as durations: `1s–3650d`.
    package var durationRangeText: String {
        "\(SettingLimits.durationText(seconds: range.lowerBound))–\(SettingLimits.durationText(seconds: range.upperBound))"
    }
}
