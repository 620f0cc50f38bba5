import Foundation

/// `serve`'s settings as one source gives them: nil where it says nothing. The command line and `config.toml`
/// each produce one; ``overriding(_:)`` merges them once (the command line wins) and ``check(naming:)``
/// validates either the same way, naming the flag or the key.
package struct ServeOptions: Equatable, Sendable {
    package static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
    package static let logFormats = ["text", "json"]

    package var listen: ListenAddress?
    package var helloTimeout: Double?
    package var maxMessageBytes: Int?
    package var maxUploadBytes: Int?
    package var previewPort: Int?
    package var previewOrigins: Int?
    package var pingInterval: Double?
    package var requestHeadTimeout: Double?
    package var maxUnauthenticated: Int?
    package var maxUnauthenticatedPerAddress: Int?
    package var logLevel: String?
    package var logFormat: String?
    package var qr: Bool?
    package var mdns: Bool?
    package var mdnsName: String?
    package var codex: String?
    package var codexConfig: [String]?
    package var roots: [String]?
    package var allowDangerFullAccess: Bool?
    package var shared: Bool?
    package var sharedSocket: String?
    package var shutdownGrace: DurationArgument?
    package var tls: Bool?
    package var tlsCert: String?
    package var tlsKey: String?
    package var tlsTailscale: Bool?
    package var journalMaxAge: DurationArgument?
    package var journalMaxBytes: Int64?
    package var push: Bool?
    package var pushSubject: String?
    package var pushDelay: DurationArgument?
    package var notify: [String]?
    package var notifyActionURL: String?
    package var allowPushHosts: [String]?
    package var inhibit: Bool?
    package var confirmPairing: Bool?
    /// Tests only (`--confirm-pairing-timeout`, no config key): how long a pairing waits for the workstation.
    package var confirmPairingTimeout: DurationArgument?
    package var startupCodeTTL: DurationArgument?
    /// Tests only (`--push-token-lifetime`, no config key): how long an action token lives.
    package var pushTokenLifetime: DurationArgument?

    /// These options where they say something, else `base`'s. The TLS choice (`tls`, the certificate files,
    /// Tailscale) is taken whole from one side: a command line that says anything about TLS replaces the file's.
    package func overriding(_ base: ServeOptions) -> ServeOptions {
        var merged = ServeOptions()
        let tlsSource = saysAnythingAboutTLS ? self : base
        for setting in ServeSetting.allCases {
            let field = setting.descriptor.value.field
            if Self.tlsChoice.contains(setting) {
                field.merge(tlsSource, tlsSource, &merged)
            } else {
                field.merge(self, base, &merged)
            }
        }
        merged.pushTokenLifetime = pushTokenLifetime ?? base.pushTokenLifetime
        merged.confirmPairingTimeout = confirmPairingTimeout ?? base.confirmPairingTimeout
        merged.startupCodeTTL = startupCodeTTL ?? base.startupCodeTTL
        return merged
    }

    /// The settings that choose the certificate, taken together from one source.
    package static let tlsChoice: [ServeSetting] = [.tls, .tlsCert, .tlsKey, .tlsTailscale]

    private var saysAnythingAboutTLS: Bool { Self.tlsChoice.contains { $0.descriptor.value.field.isSet(self) } }

    /// The first value out of range or contradicting another, with `name` naming settings in the message (the
    /// flag or the key, as the source says it).
    package func check(naming name: (ServeSetting) -> String) throws(SettingProblem) {
        for setting in ServeSetting.allCases {
            try checkRange(of: setting)
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

extension ServeOptions {
    /// `setting`'s value against its declared range or choices.
    fileprivate func checkRange(of setting: ServeSetting) throws(SettingProblem) {
        func within<Value>(_ value: Value?, _ limit: SettingLimits.Limit<Value>) throws(SettingProblem) {
            if let value, let problem = limit.problem(value) { throw SettingProblem(setting, problem) }
        }
        switch setting.descriptor.value {
        case .integer(let path, let limit): try within(self[keyPath: path], limit)
        case .integer64(let path, let limit): try within(self[keyPath: path], limit)
        case .seconds(let path, let limit): try within(self[keyPath: path], limit)
        case .duration(let path, let limit?): try within(self[keyPath: path].map { $0.duration.components.seconds }, limit)
        case .string(let path, let choices) where !choices.isEmpty:
            if let value = self[keyPath: path], !choices.contains(value) {
                throw SettingProblem(setting, "must be \(SettingValue.alternatives(choices)), not \"\(value)\"")
            }
        default: break
        }
    }
}

/// A setting whose value `serve` refuses; the source (flag or file) puts the setting's name before the message.
package struct SettingProblem: Error, Equatable {
    package var setting: ServeSetting
    package var message: String

    package init(_ setting: ServeSetting, _ message: String) {
        self.setting = setting
        self.message = message
    }
}

extension ServeOptions {
    /// Nothing said (every setting nil), for the executable (the synthesized `init()` is internal to this module).
    package static var unset: ServeOptions { ServeOptions() }
}
