import BridgeServe
import Foundation
import TOMLKit

/// `config.toml` in the config directory: a key for every `serve` flag (``ServeSetting``), read into
/// ``ServeOptions`` (nil where the file says nothing) and checked like the flags, naming file, line and key.
///
///     listen = "0.0.0.0:9099"          # --listen
///     hello_timeout = 10               # --hello-timeout (seconds)
///     qr = true                        # false = --no-qr (also: no_qr = true)
///     roots = ["~/src"]                # --root
///     tls = true                       # --tls / --no-tls; "tailscale" = --tls-tailscale
///     journal_max_age = "7d"           # --journal-max-age
enum ServeConfigFile {
    /// Reads `url`; an empty configuration when the file does not exist.
    /// - Throws: ``ConfigFileError`` naming the key and line of the first problem.
    static func load(_ url: URL, home: String? = ProcessInfo.processInfo.environment["HOME"]) throws(ConfigFileError) -> ServeOptions {
        guard FileManager.default.fileExists(atPath: url.path) else { return ServeOptions.unset }
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw ConfigFileError(path: url.path, line: nil, key: nil, message: "cannot be read: \(error.localizedDescription)")
        }
        return try parse(text, path: url.path, baseDirectory: url.deletingLastPathComponent().path, home: home)
    }

    /// Parses the text of a config file. Relative paths (`codex`, `roots`) are taken from `baseDirectory`;
    /// `~/` is the home directory.
    static func parse(_ text: String, path: String, baseDirectory: String, home: String?) throws(ConfigFileError) -> ServeOptions {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigFileError(path: path, line: error.source.begin.line, key: nil, message: "invalid TOML: \(error.description)")
        } catch {
            throw ConfigFileError(path: path, line: nil, key: nil, message: "invalid TOML: \(error)")
        }
        let reader = Reader(table: table, text: text, path: path, baseDirectory: baseDirectory, home: home)
        return try reader.read()
    }

    /// Reads typed values, remembering which key is at fault.
    private struct Reader {
        let table: TOMLTable
        let text: String
        let path: String
        let baseDirectory: String
        let home: String?

        func fail(_ key: String, _ message: String) -> ConfigFileError {
            ConfigFileError(path: path, line: Self.line(of: key, in: text), key: key, message: message)
        }

        /// The line where `key` is assigned (1-based), found in the text: TOMLKit keeps no positions for values.
        static func line(of key: String, in text: String) -> Int? {
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                var rest = Substring(line.drop { $0 == " " || $0 == "\t" })
                for quote in ["", "\"", "'"] where rest.hasPrefix(quote + key + quote) {
                    rest = rest.dropFirst(key.count + 2 * quote.count)
                    if rest.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("=") { return index + 1 }
                }
            }
            return nil
        }

        func bool(_ key: String) throws(ConfigFileError) -> Bool? {
            guard let value = table[key] else { return nil }
            guard let bool = value.bool else { throw fail(key, "must be true or false, not \(describe(value))") }
            return bool
        }

        func string(_ key: String) throws(ConfigFileError) -> String? {
            guard let value = table[key] else { return nil }
            guard let string = value.string else { throw fail(key, "must be a string, not \(describe(value))") }
            return string
        }

        func integer(_ key: String) throws(ConfigFileError) -> Int? {
            guard let value = table[key] else { return nil }
            guard let int = value.int else { throw fail(key, "must be an integer, not \(describe(value))") }
            return int
        }

        func seconds(_ key: String) throws(ConfigFileError) -> Double? {
            guard let value = table[key] else { return nil }
            if let int = value.int { return Double(int) }
            guard let double = value.double else { throw fail(key, "must be a number of seconds, not \(describe(value))") }
            return double
        }

        func strings(_ key: String) throws(ConfigFileError) -> [String]? {
            guard let value = table[key] else { return nil }
            guard let array = value.array else { throw fail(key, "must be an array of strings, not \(describe(value))") }
            var result: [String] = []
            for element in array {
                guard let string = element.string else { throw fail(key, "must be an array of strings; it holds \(describe(element))") }
                result.append(string)
            }
            return result
        }

        func describe(_ value: any TOMLValueConvertible) -> String {
            switch value.type {
            case .string: "a string (\"\(value.string ?? "")\")"
            case .int: "an integer (\(value.int ?? 0))"
            case .double: "a number (\(value.double ?? 0))"
            case .bool: "a boolean (\(value.bool ?? false))"
            case .array: "an array"
            case .table: "a table"
            default: "a date or time"
            }
        }

        /// `~/x` under the home directory; a relative path under the config file's directory.
        func expand(_ path: String) -> String {
            if path == "~" { return home ?? path }
            if path.hasPrefix("~/"), let home { return home + path.dropFirst(1) }
            if path.hasPrefix("/") || baseDirectory.isEmpty { return path }
            return URL(fileURLWithPath: baseDirectory, isDirectory: true).appendingPathComponent(path).standardizedFileURL.path
        }

        func read() throws(ConfigFileError) -> ServeOptions {
            for key in table.keys where !ServeSetting.fileKeys.contains(key) {
                throw fail(key, "is not a config key; known keys: \(ServeSetting.fileKeys.joined(separator: ", "))")
            }
            var config = ServeOptions.unset
            for setting in ServeSetting.allCases {
                try read(setting, into: &config)
            }
            // A socket named in the file means shared mode, unless the file also says `shared = false`.
            if config.shared == nil, config.sharedSocket != nil { config.shared = true }
            do {
                try config.check(naming: \.fileName)
            } catch {
                throw fail(error.setting.key, error.message)
            }
            return config
        }

        /// Reads `setting`'s key, as its kind of value says, into its field.
        func read(_ setting: ServeSetting, into config: inout ServeOptions) throws(ConfigFileError) {
            let key = setting.key
            switch setting.descriptor.value {
            case .listen(let path):
                guard let text = try string(key) else { return }
                guard let listen = ListenAddress(argument: text) else {
                    throw fail(key, "must be HOST:PORT, :PORT or tailscale[:PORT], not \"\(text)\"")
                }
                config[keyPath: path] = listen
            case .bool(let path, _):
                guard !spellsAnotherSetting(key) else { return }
                config[keyPath: path] = try boolWithInvertedAlias(setting)
            case .fileValue(let path, _, let value):
                if table[key]?.string == value { config[keyPath: path] = true }
            case .string(let path, _):
                config[keyPath: path] = try string(key)
            case .program(let path):
                config[keyPath: path] = try string(key).map { $0.contains("/") ? expand($0) : $0 }
            case .path(let path):
                config[keyPath: path] = try string(key).map(expand)
            case .strings(let path):
                config[keyPath: path] = try strings(key)
            case .paths(let path):
                config[keyPath: path] = try strings(key)?.map(expand)
            case .integer(let path, _):
                config[keyPath: path] = try integer(key)
            case .integer64(let path, _):
                config[keyPath: path] = try integer(key).map(Int64.init)
            case .seconds(let path, _):
                config[keyPath: path] = try seconds(key)
            case .duration(let path, _):
                config[keyPath: path] = try duration(key)
            }
        }

        /// Whether `key` holds the value another setting is spelled with (`tls = "tailscale"`).
        func spellsAnotherSetting(_ key: String) -> Bool {
            ServeSetting.allCases.contains { setting in
                guard case .fileValue(_, key, let value) = setting.descriptor.value else { return false }
                return table[key]?.string == value
            }
        }

        /// A duration string in the one grammar (`7d`, `20s`) or a positive number of seconds.
        func duration(_ key: String) throws(ConfigFileError) -> DurationArgument? {
            guard let value = table[key] else { return nil }
            if let text = value.string {
                guard let duration = DurationArgument(argument: text) else {
                    throw fail(key, "must be a duration like 7d, 12h or 30s, not \"\(text)\"")
                }
                return duration
            }
            guard let seconds = value.int, seconds > 0 else {
                throw fail(key, "must be a duration like \"7d\" or a positive number of seconds, not \(describe(value))")
            }
            return DurationArgument(.seconds(seconds), text: "\(seconds)s")
        }

        /// `key = true|false`, or its inverted alias (`no_qr = true`); both given must agree.
        func boolWithInvertedAlias(_ setting: ServeSetting) throws(ConfigFileError) -> Bool? {
            var value = try bool(setting.key)
            for alias in setting.invertedAliases {
                guard let inverted = try bool(alias) else { continue }
                if let value, value == inverted { throw fail(alias, "contradicts \(setting.key)") }
                value = !inverted
            }
            return value
        }
    }
}

/// A config file that cannot be used: `PATH: line N: key K: MESSAGE`.
struct ConfigFileError: Error, CustomStringConvertible, Equatable {
    var path: String
    var line: Int?
    var key: String?
    var message: String

    var description: String {
        var text = path
        if let line { text += ":\(line)" }
        text += ": "
        if let key { text += "\(key) " }
        return text + message
    }
}
