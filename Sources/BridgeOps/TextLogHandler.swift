import Foundation
import Logging

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
        write(Self.line(date: Date(), level: event.level, label: label, message: event.message.description, source: event.source, metadata: merged))
    }

    /// One log line (pure, for tests).
    public static func line(date: Date, level: Logger.Level, label: String, message: String, source: String, metadata: Logger.Metadata) -> String {
        let pairs = metadata.sorted { $0.key < $1.key }.map { key, value in
            "\(escaped(key))=\(JSONLogHandler.isSecretKey(key) ? "<redacted>" : escaped("\(value)"))"
        }
        let meta = pairs.isEmpty ? "" : " " + pairs.joined(separator: " ")
        return "\(timestamp(date)) \(level) \(escaped(label)):\(meta) [\(escaped(source))] \(escaped(message))\n"
    }

    /// `text` with every C0/C1 control character, DEL and the Unicode line/paragraph separators and bidi
    /// overrides written as escapes.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where needsEscape(scalar): out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
            || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon).timeZone(separator: .omitted))
    }
}
