import Foundation

/// Every `serve` setting, once: its `config.toml` key (the raw value) and its flag. The config file's key list,
/// the names in error messages and the README's table (checked by a test) come from here.
enum ServeSetting: String, CaseIterable, Sendable {
    case listen
    case helloTimeout = "hello_timeout"
    case maxMessageBytes = "max_message_bytes"
    case maxUploadBytes = "max_upload_bytes"
    case pingInterval = "ping_interval"
    case requestHeadTimeout = "request_head_timeout"
    case maxUnauthenticated = "max_unauthenticated"
    case maxUnauthenticatedPerAddress = "max_unauthenticated_per_address"
    case logLevel = "log_level"
    case logFormat = "log_format"
    case qr
    case mdns
    case mdnsName = "mdns_name"
    case codex
    case codexConfig = "codex_config"
    case roots
    case allowDangerFullAccess = "allow_danger_full_access"
    /// The shared app-server the terminal's Codex attaches to (ServeShared.swift).
    case shared
    case sharedSocket = "shared_socket"
    /// `tls = true|false`, or `tls = "tailscale"` (the flag `--tls-tailscale`).
    case tls
    case tlsCert = "tls_cert"
    case tlsKey = "tls_key"
    /// This machine's Tailscale certificate: `--tls-tailscale`, in the file `tls = "tailscale"`.
    case tlsTailscale = "tls_tailscale"
    case journalMaxAge = "journal_max_age"
    case journalMaxBytes = "journal_max_bytes"
    /// Notifications (see PushSettings.swift).
    case push
    case pushSubject = "push_subject"
    case pushDelay = "push_delay"
    case notify
    case notifyActionURL = "notify_action_url"
    /// Hosts a Web Push subscription may point at although they are not public https (tests, private services).
    case allowPushHosts = "allow_push_hosts"
    case inhibit
    /// Every pairing waits for this workstation's confirmation (`codex-bridge devices allow`).
    case confirmPairing = "confirm_pairing"

    /// The key in `config.toml`.
    var key: String { self == .tlsTailscale ? ServeSetting.tls.rawValue : rawValue }

    /// How the file says it, for messages.
    var fileName: String { self == .tlsTailscale ? #"tls = "tailscale""# : rawValue }

    /// Keys that say the same as this one, inverted (`no_qr = true` is `qr = false`).
    var invertedAliases: [String] {
        switch self {
        case .qr: ["no_qr"]
        case .mdns: ["no_mdns"]
        default: []
        }
    }

    /// The command-line flag.
    var flag: String {
        switch self {
        case .qr: "--no-qr"
        case .mdns: "--no-mdns"
        case .roots: "--root"
        case .push: "--no-push"
        case .notify: "--notify-url"
        case .allowPushHosts: "--allow-push-host"
        case .inhibit: "--no-inhibit"
        default: "--" + rawValue.replacingOccurrences(of: "_", with: "-")
        }
    }

    /// Every key `config.toml` may hold.
    static let fileKeys: [String] = allCases.filter { $0 != .tlsTailscale }.flatMap { [$0.key] + $0.invertedAliases }
}
