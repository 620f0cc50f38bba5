import Foundation
import Logging

/// A swift-log handler that writes one JSON object per line: `ts`, `level`, `label`, `message`, `source`, and
/// every metadata key at the top level (`bridge.connection.id`, …), for `serve --log-format json`.
///
/// Metadata whose key names a secret (`token`, `secret`, `password`, `code`) is replaced by `"<redacted>"`,
/// a second line of defence behind the rule that secrets are never logged.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    private let label: String
    private let write: @Sendable (String) -> Void

    /// - Parameter write: receives each line, newline included; defaults to standard error.
    public init(
        label: String, metadataProvider: Logger.MetadataProvider? = nil,
        write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError
    ) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = Self.merged(metadata, provider: metadataProvider, event: event.metadata)
        write(
            Self.line(
                date: Date(), level: event.level, label: label, message: event.message.description, source: event.source, metadata: merged))
    }

    /// The handler's metadata, then the provider's, then the event's (later ones win).
    static func merged(_ metadata: Logger.Metadata, provider: Logger.MetadataProvider?, event: Logger.Metadata?) -> Logger.Metadata {
        var merged = metadata
        if let provided = provider?.get() { merged.merge(provided) { _, new in new } }
        if let event { merged.merge(event) { _, new in new } }
        return merged
    }

    /// One log line (pure, for tests).
    public static func line(date: Date, level: Logger.Level, label: String, message: String, source: String, metadata: Logger.Metadata)
        -> String
    {
        var object: [String: Any] = [:]
        for (key, value) in metadata {
            object[key] = isSecretKey(key) ? "<redacted>" : json(value)
        }
        object["ts"] = timestamp(date)
        object["level"] = level.rawValue
        object["label"] = label
        object["message"] = message
        object["source"] = source
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return #"{"level":"error","message":"unencodable log line"}"# + "\n"
        }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Keys whose value is a secret: a token, secret, password or authorization, and a pairing code (a bare
    /// `code` or `*.pairing.code`); a close code, an error code or an exit code is not one.
    static func isSecretKey(_ key: String) -> Bool {
        let parts = key.lowercased().split(separator: ".")
        guard let last = parts.last else { return false }
        if ["token", "secret", "password", "authorization"].contains(where: { last.hasSuffix($0) }) { return true }
        return last == "code" && (parts.count == 1 || parts[parts.count - 2] == "pairing")
    }

    static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let string): return string
        case .stringConvertible(let convertible): return convertible.description
        case .array(let values): return values.map(json)
        case .dictionary(let dictionary): return dictionary.mapValues(json)
        }
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    /// Writes a line to standard error in one `write(2)`, so lines from several threads do not interleave.
    public static let standardError: @Sendable (String) -> Void = { line in
        var bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Foundation.write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 { if errno == EINTR { continue } else { return } }
            offset += written
        }
    }
}
