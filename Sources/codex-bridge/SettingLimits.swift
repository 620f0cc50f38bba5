/// The range of every numeric `serve` setting, used for the flag and for its config.toml key alike: out of
/// range is one line naming the flag (exit 2) or the file, line and key (exit 1), never a crash later
/// (`--hello-timeout inf` once ended in SIGILL).
enum SettingLimits {
    /// A closed range and its unit, for messages.
    struct Limit<Value: Comparable & Sendable>: Sendable {
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
    }

    static let helloTimeout = Limit(range: 0.5...300.0, unit: "seconds")
    static let pingInterval = Limit(range: 0.1...3600.0, unit: "seconds", also: 0)
    static let requestHeadTimeout = Limit(range: 0.5...120.0, unit: "seconds")
    static let maxMessageBytes = Limit(range: 1024...(64 << 20), unit: "bytes")
    static let maxUploadBytes = Limit(range: 1024...(1 << 30), unit: "bytes")
    static let journalMaxBytes = Limit<Int64>(range: 0...(1 << 40), unit: "bytes")
    static let journalMaxAgeSeconds = Limit<Int64>(range: 1...(3650 * 86_400), unit: "seconds")
    static let maxUnauthenticated = Limit(range: 16...65_536, unit: "connections")
    static let maxUnauthenticatedPerAddress = Limit(range: 1...65_536, unit: "connections")
}
