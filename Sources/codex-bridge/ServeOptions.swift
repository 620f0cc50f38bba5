import Foundation

/// `serve`'s settings as one source gives them: nil where it says nothing. The command line and `config.toml`
/// each produce one; ``overriding(_:)`` merges them once (the command line wins) and ``check(naming:)``
/// validates either the same way, naming the flag or the key.
struct ServeOptions: Equatable, Sendable {
    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
    static let logFormats = ["text", "json"]

    var listen: ListenAddress?
    var helloTimeout: Double?
    var maxMessageBytes: Int?
    var maxUploadBytes: Int?
    var pingInterval: Double?
    var requestHeadTimeout: Double?
    var maxUnauthenticated: Int?
    var maxUnauthenticatedPerAddress: Int?
    var logLevel: String?
    var logFormat: String?
    var qr: Bool?
    var mdns: Bool?
    var mdnsName: String?
    var codex: String?
    var codexConfig: [String]?
    var roots: [String]?
    var allowDangerFullAccess: Bool?
    var shared: Bool?
    var sharedSocket: String?
    var tls: Bool?
    var tlsCert: String?
    var tlsKey: String?
    var tlsTailscale: Bool?
    var journalMaxAge: DurationArgument?
    var journalMaxBytes: Int64?
    var push: Bool?
    var pushSubject: String?
    var pushDelay: DurationArgument?
    var notify: [String]?
    var notifyActionURL: String?
    var allowPushHosts: [String]?
    var inhibit: Bool?
    var confirmPairing: Bool?
    /// Tests only (`--confirm-pairing-timeout`, no config key): how long a pairing waits for the workstation.
    var confirmPairingTimeout: DurationArgument?
    /// Tests only (`--push-token-lifetime`, no config key): how long an action token lives.
    var pushTokenLifetime: DurationArgument?

    /// These options where they say something, else `base`'s. The TLS choice (`tls`, the certificate files,
    /// Tailscale) is taken whole from one side: a command line that says anything about TLS replaces the file's.
    func overriding(_ base: ServeOptions) -> ServeOptions {
        var merged = ServeOptions(
            listen: listen ?? base.listen, helloTimeout: helloTimeout ?? base.helloTimeout,
            maxMessageBytes: maxMessageBytes ?? base.maxMessageBytes, maxUploadBytes: maxUploadBytes ?? base.maxUploadBytes,
            pingInterval: pingInterval ?? base.pingInterval,
            requestHeadTimeout: requestHeadTimeout ?? base.requestHeadTimeout,
            maxUnauthenticated: maxUnauthenticated ?? base.maxUnauthenticated,
            maxUnauthenticatedPerAddress: maxUnauthenticatedPerAddress ?? base.maxUnauthenticatedPerAddress,
            logLevel: logLevel ?? base.logLevel, logFormat: logFormat ?? base.logFormat, qr: qr ?? base.qr, mdns: mdns ?? base.mdns,
            mdnsName: mdnsName ?? base.mdnsName, codex: codex ?? base.codex, codexConfig: codexConfig ?? base.codexConfig,
            roots: roots ?? base.roots, allowDangerFullAccess: allowDangerFullAccess ?? base.allowDangerFullAccess,
            shared: shared ?? base.shared, sharedSocket: sharedSocket ?? base.sharedSocket,
            journalMaxAge: journalMaxAge ?? base.journalMaxAge, journalMaxBytes: journalMaxBytes ?? base.journalMaxBytes)
        merged.push = push ?? base.push
        merged.pushSubject = pushSubject ?? base.pushSubject
        merged.pushDelay = pushDelay ?? base.pushDelay
        merged.notify = notify ?? base.notify
        merged.notifyActionURL = notifyActionURL ?? base.notifyActionURL
        merged.allowPushHosts = allowPushHosts ?? base.allowPushHosts
        merged.inhibit = inhibit ?? base.inhibit
        merged.pushTokenLifetime = pushTokenLifetime ?? base.pushTokenLifetime
        merged.confirmPairing = confirmPairing ?? base.confirmPairing
        merged.confirmPairingTimeout = confirmPairingTimeout ?? base.confirmPairingTimeout
        let tlsSource = saysAnythingAboutTLS ? self : base
        merged.tls = tlsSource.tls
        merged.tlsCert = tlsSource.tlsCert
        merged.tlsKey = tlsSource.tlsKey
        merged.tlsTailscale = tlsSource.tlsTailscale
        return merged
    }

    private var saysAnythingAboutTLS: Bool { tls != nil || tlsCert != nil || tlsKey != nil || tlsTailscale != nil }

    /// The first value out of range or contradicting another, with `name` naming settings in the message (the
    /// flag or the key, as the source says it).
    func check(naming name: (ServeSetting) -> String) throws(SettingProblem) {
        func within<Value>(_ setting: ServeSetting, _ value: Value?, _ limit: SettingLimits.Limit<Value>) throws(SettingProblem) {
            if let value, let problem = limit.problem(value) { throw SettingProblem(setting, problem) }
        }
        try within(.helloTimeout, helloTimeout, SettingLimits.helloTimeout)
        try within(.maxMessageBytes, maxMessageBytes, SettingLimits.maxMessageBytes)
        try within(.maxUploadBytes, maxUploadBytes, SettingLimits.maxUploadBytes)
        try within(.pingInterval, pingInterval, SettingLimits.pingInterval)
        try within(.requestHeadTimeout, requestHeadTimeout, SettingLimits.requestHeadTimeout)
        try within(.maxUnauthenticated, maxUnauthenticated, SettingLimits.maxUnauthenticated)
        try within(.maxUnauthenticatedPerAddress, maxUnauthenticatedPerAddress, SettingLimits.maxUnauthenticatedPerAddress)
        try within(.journalMaxBytes, journalMaxBytes, SettingLimits.journalMaxBytes)
        try within(.journalMaxAge, journalMaxAge.map { $0.duration.components.seconds }, SettingLimits.journalMaxAgeSeconds)
        if let logLevel, !Self.logLevels.contains(logLevel) {
            throw SettingProblem(.logLevel, "must be one of \(Self.logLevels.joined(separator: ", ")), not \"\(logLevel)\"")
        }
        if let logFormat, !Self.logFormats.contains(logFormat) {
            throw SettingProblem(.logFormat, "must be text or json, not \"\(logFormat)\"")
        }
        for entry in codexConfig ?? [] where !entry.contains("=") {
            throw SettingProblem(.codexConfig, "expects KEY=VALUE entries, got \"\(entry)\"")
        }
        for root in roots ?? [] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw SettingProblem(.roots, "entry \"\(root)\" is not an existing directory")
            }
        }
        try checkPush()
        if let sharedSocket, !sharedSocket.hasPrefix("/") || sharedSocket.utf8.count > 107 {
            throw SettingProblem(.sharedSocket, "must be an absolute path of at most 107 bytes (a unix socket path)")
        }
        if (tlsCert == nil) != (tlsKey == nil) {
            throw SettingProblem(
                tlsCert == nil ? .tlsKey : .tlsCert, "and \(name(tlsCert == nil ? .tlsCert : .tlsKey)) go together: give both files")
        }
        if tls == false, tlsCert != nil || tlsTailscale == true {
            throw SettingProblem(.tls, "off contradicts \(name(tlsCert != nil ? .tlsCert : .tlsTailscale))")
        }
        if tlsTailscale == true, tlsCert != nil {
            throw SettingProblem(.tlsTailscale, "and \(name(.tlsCert)) are two different certificates: choose one")
        }
    }
}

/// A setting whose value `serve` refuses; the source (flag or file) puts the setting's name before the message.
struct SettingProblem: Error, Equatable {
    var setting: ServeSetting
    var message: String

    init(_ setting: ServeSetting, _ message: String) {
        self.setting = setting
        self.message = message
    }
}
