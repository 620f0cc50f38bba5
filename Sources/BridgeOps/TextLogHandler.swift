import Foundation
import Logging
import Synchronization

/// A swift-log handler for `serve --log-format text`: one line per event, in swift-log's
/// `StreamLogHandler` layout (`TIMESTAMP LEVEL LABEL: key=value … [SOURCE] MESSAGE`), except that every
/// control character in the message and in metadata is shown escaped (`\u{1B}`, `\n`). Client-supplied
/// strings (device names, ids, an agent's text) thus cannot forge log lines or drive a terminal that shows
/// the log. Metadata keys naming a secret are redacted, as in ``JSONLogHandler``.
public struct TextLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    private let label: String
    private let write: @Sendable (String) -> Void

    /// - Parameter write: receives each line, newline included; defaults to standard error.
    public init(label: String, write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = JSONLogHandler.merged(metadata, provider: metadataProvider, event: event.metadata)
        write(
            Self.line(
                date: Date(), level: event.level, label: label, message: event.message.description, source: event.source, metadata: merged))
    }

    /// One log line (pure, for tests).
    public static func line(date: Date, level: Logger.Level, label: String, message: String, source: String, metadata: Logger.Metadata)
        -> String
    {
        let pairs = metadata.sorted { $0.key < $1.key }.map { key, value in
            "\(escaped(key))=\(JSONLogHandler.isSecretKey(key) ? "<redacted>" : escaped("\(value)"))"
        }
        let meta = pairs.isEmpty ? "" : " " + pairs.joined(separator: " ")
        return "\(timestamp(date)) \(level) \(escaped(label)):\(meta) [\(escaped(source))] \(escaped(message))\n"
    }

    /// `text` with control characters escaped (``ControlCharacters``), newlines included.
    public static func escaped(_ text: String) -> String {
        ControlCharacters.escaped(text)
    }

    /// The line's time, to the second (UTC). Formatting a date was about a sixth of a line's cost in a profile of
    /// the bridge's handshake (one `info` line per client), and lines within one second share it: the last
    /// second's text is kept.
    static func timestamp(_ date: Date) -> String {
        let second = Int(date.timeIntervalSince1970.rounded(.down))
        if let text = lastStamp.withLock({ $0.second == second ? $0.text : nil }) { return text }
        let text = formatted(date)
        lastStamp.withLock { $0 = (second, text) }
        return text
    }

    private static let lastStamp = Mutex<(second: Int, text: String)>((Int.min, ""))

    static func formatted(_ date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon).timeZone(
                separator: .omitted))
    }
}
