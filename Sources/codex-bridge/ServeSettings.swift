import Foundation

/// What `serve` runs with: each value is the flag when given, else `config.toml`'s key, else the default.
///
/// Repeatable flags (`--root`, `--codex-config`) replace the file's array when given at least once.
/// `--no-qr`, `--no-mdns` and `--allow-danger-full-access` can only move away from the default, so when one
/// is given it wins; `--tls` / `--no-tls` win either way.
struct ServeSettings: Equatable {
    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    var listen = ListenAddress(host: "0.0.0.0", port: 9099)
    var helloTimeout: Double = 10
    var maxMessageBytes = 1 << 20
    var pingInterval: Double = 20
    var logLevel = "info"
    var logFormat = "text"
    var qr = true
    var mdns = true
    var mdnsName: String?
    var codex: String?
    var codexConfig: [String] = []
    var roots: [String] = []
    var allowDangerFullAccess = false
    var tls = false
    /// A certificate chain and key the user provides (both or neither); they imply TLS.
    var tlsCert: String?
    var tlsKey: String?
    /// Serve this machine's Tailscale certificate (`tailscale cert`), offering its MagicDNS name first.
    var tlsTailscale = false
    var journalMaxAge = DurationArgument(.seconds(7 * 86400), text: "7d")
    var journalMaxBytes: Int64 = 256 << 20
    var requestHeadTimeout: Double = 5
    var maxUnauthenticated = 512
    var maxUnauthenticatedPerAddress = 128
    /// `--shared`: use the shared `codex app-server --listen unix://…` the terminal's Codex attaches to.
    var shared = false
    /// `--shared-socket`: its socket (default: Codex's own control socket under `$CODEX_HOME`).
    var sharedSocket: String?

    /// The flags as given on the command line: nil (or empty, or false for `--no-…` flags) when not given.
    struct Flags: Equatable {
        var listen: ListenAddress?
        var helloTimeout: Double?
        var maxMessageBytes: Int?
        var pingInterval: Double?
        var logLevel: String?
        var logFormat: String?
        var noQR = false
        var noMDNS = false
        var mdnsName: String?
        var codex: String?
        var codexConfig: [String] = []
        var roots: [String] = []
        var allowDangerFullAccess = false
        var tls: Bool?
        var tlsCert: String?
        var tlsKey: String?
        var tlsTailscale = false
        var journalMaxAge: DurationArgument?
        var journalMaxBytes: Int64?
        var requestHeadTimeout: Double?
        var maxUnauthenticated: Int?
        var maxUnauthenticatedPerAddress: Int?
        var shared = false
        var sharedSocket: String?
    }

    /// Flag, then file, then default, for every setting.
    static func resolve(flags: Flags, file: ServeConfigFile) -> ServeSettings {
        var settings = ServeSettings()
        settings.listen = flags.listen ?? file.listen ?? settings.listen
        settings.helloTimeout = flags.helloTimeout ?? file.helloTimeout ?? settings.helloTimeout
        settings.maxMessageBytes = flags.maxMessageBytes ?? file.maxMessageBytes ?? settings.maxMessageBytes
        settings.pingInterval = flags.pingInterval ?? file.pingInterval ?? settings.pingInterval
        settings.logLevel = flags.logLevel ?? file.logLevel ?? settings.logLevel
        settings.logFormat = flags.logFormat ?? file.logFormat ?? settings.logFormat
        settings.qr = flags.noQR ? false : file.qr ?? settings.qr
        settings.mdns = flags.noMDNS ? false : file.mdns ?? settings.mdns
        settings.mdnsName = flags.mdnsName ?? file.mdnsName
        settings.codex = flags.codex ?? file.codex
        settings.codexConfig = flags.codexConfig.isEmpty ? file.codexConfig ?? [] : flags.codexConfig
        settings.roots = flags.roots.isEmpty ? file.roots ?? [] : flags.roots
        settings.allowDangerFullAccess = flags.allowDangerFullAccess ? true : file.allowDangerFullAccess ?? false
        settings.tlsCert = flags.tlsCert ?? file.tlsCert
        settings.tlsKey = flags.tlsKey ?? file.tlsKey
        settings.tlsTailscale = flags.tlsCert == nil && (flags.tlsTailscale || (flags.tls == nil && file.tlsTailscale == true))
        if settings.tlsTailscale {
            settings.tlsCert = nil
            settings.tlsKey = nil
        }
        settings.tls = flags.tls ?? file.tls ?? (settings.tlsCert != nil || settings.tlsTailscale || settings.tls)
        settings.journalMaxAge = flags.journalMaxAge ?? file.journalMaxAge ?? settings.journalMaxAge
        settings.journalMaxBytes = flags.journalMaxBytes ?? file.journalMaxBytes ?? settings.journalMaxBytes
        settings.requestHeadTimeout = flags.requestHeadTimeout ?? file.requestHeadTimeout ?? settings.requestHeadTimeout
        settings.maxUnauthenticated = flags.maxUnauthenticated ?? file.maxUnauthenticated ?? settings.maxUnauthenticated
        settings.maxUnauthenticatedPerAddress =
            flags.maxUnauthenticatedPerAddress ?? file.maxUnauthenticatedPerAddress ?? settings.maxUnauthenticatedPerAddress
        settings.sharedSocket = flags.sharedSocket ?? file.sharedSocket
        // A socket named on the command line means shared mode.
        settings.shared = flags.shared || flags.sharedSocket != nil || (file.shared ?? (file.sharedSocket != nil))
        return settings
    }

    /// Checks the flags' values (the file's are checked as it is read, naming the key).
    static func validate(_ flags: Flags) throws {
        for entry in flags.codexConfig where !entry.contains("=") {
            throw SettingsError("--codex-config expects KEY=VALUE, got '\(entry)'")
        }
        func check<Value>(_ name: String, _ value: Value?, _ limit: SettingLimits.Limit<Value>) throws {
            if let value, let problem = limit.problem(value) { throw SettingsError("\(name) \(problem)") }
        }
        try check("--hello-timeout", flags.helloTimeout, SettingLimits.helloTimeout)
        try check("--ping-interval", flags.pingInterval, SettingLimits.pingInterval)
        try check("--max-message-bytes", flags.maxMessageBytes, SettingLimits.maxMessageBytes)
        try check("--journal-max-bytes", flags.journalMaxBytes, SettingLimits.journalMaxBytes)
        try check("--journal-max-age", flags.journalMaxAge.map { $0.duration.components.seconds }, SettingLimits.journalMaxAgeSeconds)
        try check("--request-head-timeout", flags.requestHeadTimeout, SettingLimits.requestHeadTimeout)
        try check("--max-unauthenticated", flags.maxUnauthenticated, SettingLimits.maxUnauthenticated)
        try check("--max-unauthenticated-per-address", flags.maxUnauthenticatedPerAddress, SettingLimits.maxUnauthenticatedPerAddress)
        if let value = flags.logFormat, !["text", "json"].contains(value) { throw SettingsError("--log-format must be text or json") }
        if let value = flags.logLevel, !logLevels.contains(value) {
            throw SettingsError("--log-level must be one of \(logLevels.joined(separator: ", "))")
        }
        if let socket = flags.sharedSocket, !socket.hasPrefix("/") || socket.utf8.count > 107 {
            throw SettingsError("--shared-socket must be an absolute path of at most 107 bytes (a unix socket path)")
        }
        if (flags.tlsCert == nil) != (flags.tlsKey == nil) { throw SettingsError("--tls-cert and --tls-key go together: give both files") }
        if flags.tls == false, flags.tlsCert != nil || flags.tlsTailscale {
            throw SettingsError("--no-tls contradicts --tls-cert and --tls-tailscale")
        }
        if flags.tlsTailscale, flags.tlsCert != nil {
            throw SettingsError("--tls-tailscale and --tls-cert are two different certificates: choose one")
        }
    }

    /// The journal's maximum age in seconds.
    var journalMaxAgeSeconds: Double {
        Double(journalMaxAge.duration.components.seconds) + Double(journalMaxAge.duration.components.attoseconds) / 1e18
    }
}

/// A flag value that `serve` refuses.
struct SettingsError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
