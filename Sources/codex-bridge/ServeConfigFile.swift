import Foundation
import TOMLKit

/// `config.toml` in the config directory: a key for every `serve` flag. Every field is nil when the file
/// does not set it; ``ServeSettings`` resolves flag, then file, then default.
///
///     listen = "0.0.0.0:9099"          # --listen
///     hello_timeout = 10               # --hello-timeout (seconds)
///     max_message_bytes = 1048576      # --max-message-bytes
///     ping_interval = 20               # --ping-interval (seconds; 0 disables)
///     log_level = "info"               # --log-level
///     log_format = "text"              # --log-format
///     qr = true                        # false = --no-qr (also: no_qr = true)
///     mdns = true                      # false = --no-mdns (also: no_mdns = true)
///     mdns_name = "My Workstation"     # --mdns-name
///     codex = "/usr/local/bin/codex"   # --codex
///     codex_config = ["model=o4"]      # --codex-config (each KEY=VALUE)
///     roots = ["~/src"]                # --root
///     allow_danger_full_access = false # --allow-danger-full-access
///     tls = true                       # --tls / --no-tls
///     journal_max_age = "7d"           # --journal-max-age
///     journal_max_bytes = 268435456    # --journal-max-bytes
///     shared = true                    # --shared
///     shared_socket = "~/.codex/app-server-control/app-server-control.sock"  # --shared-socket
struct ServeConfigFile: Equatable {
    var listen: ListenAddress?
    var helloTimeout: Double?
    var maxMessageBytes: Int?
    var pingInterval: Double?
    var logLevel: String?
    var logFormat: String?
    var qr: Bool?
    var mdns: Bool?
    var mdnsName: String?
    var codex: String?
    var codexConfig: [String]?
    var roots: [String]?
    var allowDangerFullAccess: Bool?
    var tls: Bool?
    var tlsCert: String?
    var tlsKey: String?
    var requestHeadTimeout: Double?
    var maxUnauthenticated: Int?
    var maxUnauthenticatedPerAddress: Int?
    /// `tls = "tailscale"`.
    var tlsTailscale: Bool?
    var journalMaxAge: DurationArgument?
    var journalMaxBytes: Int64?
    var shared: Bool?
    var sharedSocket: String?

    /// Every key the file may hold.
    static let keys = [
        "listen", "hello_timeout", "max_message_bytes", "ping_interval", "log_level", "log_format", "qr", "no_qr", "mdns",
        "no_mdns", "mdns_name", "codex", "codex_config", "roots", "allow_danger_full_access", "tls", "tls_cert", "tls_key",
        "request_head_timeout", "max_unauthenticated",
        "max_unauthenticated_per_address", "journal_max_age",
        "journal_max_bytes", "shared", "shared_socket",
    ]

    /// Reads `url`; an empty configuration when the file does not exist.
    /// - Throws: ``ConfigFileError`` naming the key and line of the first problem.
    static func load(_ url: URL, home: String? = ProcessInfo.processInfo.environment["HOME"]) throws(ConfigFileError) -> ServeConfigFile {
        guard FileManager.default.fileExists(atPath: url.path) else { return ServeConfigFile() }
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
    static func parse(_ text: String, path: String, baseDirectory: String, home: String?) throws(ConfigFileError) -> ServeConfigFile {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigFileError(path: path, line: error.source.begin.line, key: nil, message: "invalid TOML: \(error.description)")
        } catch {
            throw ConfigFileError(path: path, line: nil, key: nil, message: "invalid TOML: \(error)")
        }
        var reader = Reader(table: table, text: text, path: path, baseDirectory: baseDirectory, home: home)
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

        mutating func read() throws(ConfigFileError) -> ServeConfigFile {
            for key in table.keys where !ServeConfigFile.keys.contains(key) {
                throw fail(key, "is not a config key; known keys: \(ServeConfigFile.keys.joined(separator: ", "))")
            }
            var config = ServeConfigFile()
            if let text = try string("listen") {
                guard let listen = ListenAddress(argument: text) else {
                    throw fail("listen", "must be HOST:PORT, :PORT or tailscale[:PORT], not \"\(text)\"")
                }
                config.listen = listen
            }
            func limited<Value>(_ key: String, _ value: Value?, _ limit: SettingLimits.Limit<Value>) throws(ConfigFileError) -> Value? {
                guard let value else { return nil }
                if let problem = limit.problem(value) { throw fail(key, problem) }
                return value
            }
            config.helloTimeout = try limited("hello_timeout", try seconds("hello_timeout"), SettingLimits.helloTimeout)
            config.maxMessageBytes = try limited("max_message_bytes", try integer("max_message_bytes"), SettingLimits.maxMessageBytes)
            config.pingInterval = try limited("ping_interval", try seconds("ping_interval"), SettingLimits.pingInterval)
            config.requestHeadTimeout = try limited(
                "request_head_timeout", try seconds("request_head_timeout"), SettingLimits.requestHeadTimeout)
            config.maxUnauthenticated = try limited(
                "max_unauthenticated", try integer("max_unauthenticated"), SettingLimits.maxUnauthenticated)
            config.maxUnauthenticatedPerAddress = try limited(
                "max_unauthenticated_per_address", try integer("max_unauthenticated_per_address"),
                SettingLimits.maxUnauthenticatedPerAddress)
            if let value = try string("log_level") {
                guard ServeSettings.logLevels.contains(value) else {
                    throw fail("log_level", "must be one of \(ServeSettings.logLevels.joined(separator: ", ")), not \"\(value)\"")
                }
                config.logLevel = value
            }
            if let value = try string("log_format") {
                guard ["text", "json"].contains(value) else { throw fail("log_format", "must be text or json, not \"\(value)\"") }
                config.logFormat = value
            }
            config.qr = try bool("qr")
            if let noQR = try bool("no_qr") {
                if let qr = config.qr, qr == noQR { throw fail("no_qr", "contradicts qr") }
                config.qr = !noQR
            }
            config.mdns = try bool("mdns")
            if let noMDNS = try bool("no_mdns") {
                if let mdns = config.mdns, mdns == noMDNS { throw fail("no_mdns", "contradicts mdns") }
                config.mdns = !noMDNS
            }
            config.mdnsName = try string("mdns_name")
            config.codex = try string("codex").map { $0.contains("/") ? expand($0) : $0 }
            if let entries = try strings("codex_config") {
                for entry in entries where !entry.contains("=") {
                    throw fail("codex_config", "expects KEY=VALUE strings, got \"\(entry)\"")
                }
                config.codexConfig = entries
            }
            config.roots = try strings("roots")?.map(expand)
            for root in config.roots ?? [] {
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
                    throw fail("roots", "entry \"\(root)\" is not an existing directory")
                }
            }
            config.allowDangerFullAccess = try bool("allow_danger_full_access")
            config.shared = try bool("shared")
            config.sharedSocket = try string("shared_socket").map(expand)
            if let socket = config.sharedSocket, !socket.hasPrefix("/") || socket.utf8.count > 107 {
                throw fail("shared_socket", "must be an absolute path of at most 107 bytes (a unix socket path)")
            }
            if table["tls"]?.string == "tailscale" {
                config.tlsTailscale = true
            } else {
                config.tls = try bool("tls")
            }
            config.tlsCert = try string("tls_cert").map(expand)
            config.tlsKey = try string("tls_key").map(expand)
            if (config.tlsCert == nil) != (config.tlsKey == nil) {
                throw fail(config.tlsCert == nil ? "tls_key" : "tls_cert", "needs tls_cert and tls_key together")
            }
            if let value = table["journal_max_age"] {
                if let text = value.string {
                    guard let age = DurationArgument(argument: text) else {
                        throw fail("journal_max_age", "must be a duration like 7d, 12h or 30s, not \"\(text)\"")
                    }
                    config.journalMaxAge = age
                } else if let seconds = value.int, seconds > 0 {
                    config.journalMaxAge = DurationArgument(.seconds(seconds), text: "\(seconds)s")
                } else {
                    throw fail("journal_max_age", "must be a duration like \"7d\" or a positive number of seconds, not \(describe(value))")
                }
            }
            config.journalMaxBytes = try limited(
                "journal_max_bytes", try integer("journal_max_bytes").map(Int64.init), SettingLimits.journalMaxBytes)
            if let age = config.journalMaxAge, let problem = SettingLimits.journalMaxAgeSeconds.problem(age.duration.components.seconds) {
                throw fail("journal_max_age", problem)
            }
            return config
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
