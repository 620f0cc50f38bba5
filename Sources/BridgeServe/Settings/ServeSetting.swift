import Foundation

/// Every `serve` setting, once: its `config.toml` key (the raw value) and, in ``descriptor``, its flag, kind,
/// range, help and default. The flags' names and help, the config file's reader, the checks, the merge of flag
/// over file, the names in error messages and the README's table (checked by a test) come from here; the
/// completions come from the flags. Adding a setting: a case and its descriptor here, its field in
/// ``ServeOptions`` and ``ServeSettings``, and its `@Option` in ``ServeCommand`` (a test fails until all agree).
package enum ServeSetting: String, CaseIterable, Sendable {
    case listen
    case tls
    case tlsCert = "tls_cert"
    case tlsKey = "tls_key"
    /// This machine's Tailscale certificate: `--tls-tailscale`, in the file `tls = "tailscale"`.
    case tlsTailscale = "tls_tailscale"
    case roots
    case codex
    case codexConfig = "codex_config"
    case allowDangerFullAccess = "allow_danger_full_access"
    case helloTimeout = "hello_timeout"
    case maxMessageBytes = "max_message_bytes"
    case maxUploadBytes = "max_upload_bytes"
    /// The preview origin's port (BridgePreview).
    case previewPort = "preview_port"
    /// How many preview origins (ports after the preview port), one per preview.
    case previewOrigins = "preview_origins"
    case pingInterval = "ping_interval"
    case requestHeadTimeout = "request_head_timeout"
    case maxUnauthenticated = "max_unauthenticated"
    case maxUnauthenticatedPerAddress = "max_unauthenticated_per_address"
    case qr
    case mdns
    case mdnsName = "mdns_name"
    case logLevel = "log_level"
    case logFormat = "log_format"
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
    /// The shared app-server the terminal's Codex attaches to (ServeShared.swift).
    case shared
    case sharedSocket = "shared_socket"
    /// On SIGTERM/SIGINT, how long running turns may finish (ThreadHub+Drain).
    case shutdownGrace = "shutdown_grace"

    /// The declaration of this setting.
    package var descriptor: ServeSettingDescriptor {
        let defaults = ServeSettings()
        let seconds = "seconds"
        let bytes = "bytes"
        return switch self {
        case .listen:
            ServeSettingDescriptor(
                flag: "listen", value: .listen(\.listen), help: "Address and port to listen on; port 0 picks a free one",
                valueName: "host:port", defaultText: "\(defaults.listen.host):\(defaults.listen.port)")
        case .tls:
            ServeSettingDescriptor(
                flag: "tls", value: .bool(\.tls),
                help:
                    "Serve https:// and wss:// with a certificate from this workstation's own certificate authority in STATE/tls (made on first use; see `codex-bridge tls ca`)",
                defaultText: "\(defaults.tls)", otherFlags: ["--no-tls"])
        case .tlsCert:
            ServeSettingDescriptor(
                flag: "tls-cert", value: .path(\.tlsCert),
                help:
                    "A PEM certificate chain to serve instead of one from the workstation's CA (a CA the phones trust); reloaded when it changes. Needs --tls-key",
                valueName: "file", defaultText: "none: a certificate from this workstation's CA", defaultIsLiteral: false,
                typeText: "string (path; with `tls_key`)")
        case .tlsKey:
            ServeSettingDescriptor(
                flag: "tls-key", value: .path(\.tlsKey), help: "The PEM private key of --tls-cert (mode 0600)", valueName: "file",
                defaultText: "none", defaultIsLiteral: false, typeText: "string (path; with `tls_cert`)")
        case .tlsTailscale:
            ServeSettingDescriptor(
                flag: "tls-tailscale", value: .fileValue(\.tlsTailscale, key: "tls", value: "tailscale"),
                help:
                    "Serve this machine's Tailscale certificate (`tailscale cert`, renewed daily) and offer its MagicDNS name first: phones on the tailnet get https:// their browsers trust",
                defaultText: "off", defaultIsLiteral: false)
        case .roots:
            ServeSettingDescriptor(
                flag: "root", value: .paths(\.roots), help: "A directory threads may run in", valueName: "dir",
                defaultText: "the current directory", defaultIsLiteral: false)
        case .codex:
            ServeSettingDescriptor(
                flag: "codex", value: .program(\.codex), help: "Path of the codex binary", valueName: "path",
                defaultText: "`codex` on PATH, then the PyPI package", defaultIsLiteral: false)
        case .codexConfig:
            ServeSettingDescriptor(
                flag: "codex-config", value: .strings(\.codexConfig), help: "Passed to codex as -c KEY=VALUE", valueName: "key=value",
                defaultText: "none", defaultIsLiteral: false, typeText: "array of `KEY=VALUE` strings")
        case .allowDangerFullAccess:
            ServeSettingDescriptor(
                flag: "allow-danger-full-access", value: .bool(\.allowDangerFullAccess),
                help: "Let clients choose the danger-full-access sandbox", defaultText: "\(defaults.allowDangerFullAccess)")
        case .helloTimeout:
            ServeSettingDescriptor(
                flag: "hello-timeout", value: .seconds(\.helloTimeout, .init(range: 0.5...300.0, unit: seconds)),
                help: "Seconds a client has to send hello", valueName: "seconds", defaultText: SettingLimits.text(defaults.helloTimeout))
        case .maxMessageBytes:
            ServeSettingDescriptor(
                flag: "max-message-bytes", value: .integer(\.maxMessageBytes, .init(range: 1024...(64 << 20), unit: bytes)),
                help: "Largest accepted message in bytes; larger ones close with 1009", valueName: "bytes",
                defaultText: "\(defaults.maxMessageBytes)")
        case .maxUploadBytes:
            ServeSettingDescriptor(
                flag: "max-upload-bytes", value: .integer(\.maxUploadBytes, .init(range: 1024...(1 << 30), unit: bytes)),
                help: "Largest attachment (POST /uploads) in bytes", valueName: "bytes", defaultText: "\(defaults.maxUploadBytes)")
        case .previewPort:
            ServeSettingDescriptor(
                flag: "preview-port", value: .integer(\.previewPort, .init(range: 0...65_535, unit: "port")),
                help: "Port of the preview origin (a thread's dev server, shown through the bridge); same addresses and TLS as --listen",
                valueName: "port", defaultText: "the --listen port + 1 (0 when that is 0)", defaultIsLiteral: false)
        case .previewOrigins:
            ServeSettingDescriptor(
                flag: "preview-origins", value: .integer(\.previewOrigins, .init(range: 1...256, unit: "ports")),
                help:
                    "How many previews may be open at once, each on an origin of its own: the ports after --preview-port (any free ports when it is 0)",
                valueName: "n", defaultText: "\(defaults.previewOrigins)")
        case .pingInterval:
            ServeSettingDescriptor(
                flag: "ping-interval", value: .seconds(\.pingInterval, .init(range: 0.1...3600.0, unit: seconds, also: 0)),
                help: "Seconds between WebSocket pings", valueName: "seconds", defaultText: SettingLimits.text(defaults.pingInterval))
        case .requestHeadTimeout:
            ServeSettingDescriptor(
                flag: "request-head-timeout", value: .seconds(\.requestHeadTimeout, .init(range: 0.5...120.0, unit: seconds)),
                help: "Seconds a new connection has to send its first request head", valueName: "seconds",
                defaultText: SettingLimits.text(defaults.requestHeadTimeout))
        case .maxUnauthenticated:
            ServeSettingDescriptor(
                flag: "max-unauthenticated", value: .integer(\.maxUnauthenticated, .init(range: 16...65_536, unit: "connections")),
                help: "Most connections not yet authenticated at once; past it the oldest is closed", valueName: "n",
                defaultText: "\(defaults.maxUnauthenticated)")
        case .maxUnauthenticatedPerAddress:
            ServeSettingDescriptor(
                flag: "max-unauthenticated-per-address",
                value: .integer(\.maxUnauthenticatedPerAddress, .init(range: 1...65_536, unit: "connections")),
                help: "Most connections not yet authenticated from one address", valueName: "n",
                defaultText: "\(defaults.maxUnauthenticatedPerAddress)")
        case .qr:
            ServeSettingDescriptor(
                flag: "no-qr", value: .bool(\.qr, inverted: true), help: "Do not print the pairing QR code at startup",
                defaultText: "\(defaults.qr)", invertedKey: true)
        case .mdns:
            ServeSettingDescriptor(
                flag: "no-mdns", value: .bool(\.mdns, inverted: true), help: "Do not advertise the bridge over mDNS",
                defaultText: "\(defaults.mdns)", invertedKey: true)
        case .mdnsName:
            ServeSettingDescriptor(
                flag: "mdns-name", value: .string(\.mdnsName), help: "Instance name advertised over mDNS", valueName: "name",
                defaultText: "the host name", defaultIsLiteral: false)
        case .logLevel:
            ServeSettingDescriptor(
                flag: "log-level", value: .string(\.logLevel, choices: ServeOptions.logLevels), help: "Log level", valueName: "level",
                defaultText: defaults.logLevel)
        case .logFormat:
            ServeSettingDescriptor(
                flag: "log-format", value: .string(\.logFormat, choices: ServeOptions.logFormats),
                help: "Log format: one line per event, or one JSON object per line", valueName: "format",
                defaultText: defaults.logFormat)
        case .journalMaxAge:
            ServeSettingDescriptor(
                flag: "journal-max-age", value: .duration(\.journalMaxAge, .init(range: 1...(3650 * 86_400), unit: seconds)),
                help: "Journaled events older than this are pruned, e.g. 7d, 12h or 30s", valueName: "duration",
                defaultText: defaults.journalMaxAge.text)
        case .journalMaxBytes:
            ServeSettingDescriptor(
                flag: "journal-max-bytes", value: .integer64(\.journalMaxBytes, .init(range: 0...(1 << 40), unit: bytes)),
                help: "The oldest journaled events beyond this many bytes in total are pruned", valueName: "bytes",
                defaultText: "\(defaults.journalMaxBytes)")
        case .push:
            ServeSettingDescriptor(
                flag: "no-push", value: .bool(\.push, inverted: true),
                help: "Turn Web Push notifications off (no VAPID key, no pushSubscribe)", defaultText: "\(defaults.push.enabled)")
        case .pushSubject:
            ServeSettingDescriptor(
                flag: "push-subject", value: .string(\.pushSubject), help: "The VAPID contact push services see: mailto:… or https://…",
                valueName: "uri", defaultText: "mailto:USER@HOST", typeText: "string (`mailto:…` or `https://…`)")
        case .pushDelay:
            ServeSettingDescriptor(
                flag: "push-delay", value: .duration(\.pushDelay, nil),
                help: "How long a connected but hidden device has to see an event before it is pushed, at most 1h",
                valueName: "duration", defaultText: defaults.push.delay.text,
                typeText: "duration string (`20s`) or seconds (at most 1 hour)")
        case .notify:
            ServeSettingDescriptor(
                flag: "notify-url", value: .strings(\.notify),
                help:
                    "Also post events to this URL: an ntfy topic (ntfy.sh/…, ntfy.… or ntfy:URL) with action buttons, else a JSON webhook",
                valueName: "url", defaultText: "none", defaultIsLiteral: false, typeText: "array of URLs")
        case .notifyActionURL:
            ServeSettingDescriptor(
                flag: "notify-action-url", value: .string(\.notifyActionURL),
                help: "The base URL phones reach this bridge at (e.g. https://host:9099), for the Approve/Decline buttons of --notify-url",
                valueName: "url", defaultText: "none: ntfy gets no buttons", defaultIsLiteral: false, typeText: "string (base URL)")
        case .allowPushHosts:
            ServeSettingDescriptor(
                flag: "allow-push-host", value: .strings(\.allowPushHosts),
                help: "Let Web Push subscriptions point at this host over http or https on any port (tests, private push services)",
                valueName: "host",
                defaultText: "none: a Web Push endpoint must be `https://` on a host that resolves only to public addresses",
                defaultIsLiteral: false, typeText: "array of host names or addresses")
        case .inhibit:
            ServeSettingDescriptor(
                flag: "no-inhibit", value: .bool(\.inhibit, inverted: true), help: "Do not hold a logind sleep inhibitor while a turn runs",
                defaultText: "\(defaults.push.inhibit)")
        case .confirmPairing:
            ServeSettingDescriptor(
                flag: "confirm-pairing", value: .bool(\.confirmPairing),
                help:
                    "Make every pairing wait for this workstation's confirmation: the phone shows a check code, `codex-bridge devices allow ID --check CODE` completes it",
                defaultText: "\(defaults.confirmPairing)")
        case .shared:
            ServeSettingDescriptor(
                flag: "shared", value: .bool(\.shared),
                help:
                    "Share Codex with the terminal: use the shared codex app-server (started if none runs) that `codex --remote unix://…` attaches to",
                defaultText: "\(defaults.shared)")
        case .shutdownGrace:
            ServeSettingDescriptor(
                flag: "shutdown-grace", value: .duration(\.shutdownGrace, .init(range: 0...600, unit: seconds)),
                help:
                    "On SIGTERM or SIGINT, how long running turns may go on (phones are told) before Codex is stopped; 0 stops at once",
                valueName: "duration", defaultText: defaults.shutdownGrace.text)
        case .sharedSocket:
            ServeSettingDescriptor(
                flag: "shared-socket", value: .path(\.sharedSocket), help: "The shared app-server's unix socket (implies --shared)",
                valueName: "path", defaultText: "$CODEX_HOME/app-server-control/app-server-control.sock",
                typeText: "string (absolute path, at most 107 bytes; implies `shared`)")
        }
    }

    /// The key in `config.toml`.
    package var key: String {
        if case .fileValue(_, let key, _) = descriptor.value { return key }
        return rawValue
    }

    /// How the file says it, for messages.
    package var fileName: String {
        if case .fileValue(_, let key, let value) = descriptor.value { return #"\#(key) = "\#(value)""# }
        return rawValue
    }

    /// Keys that say the same as this one, inverted (`no_qr = true` is `qr = false`): the flag's own name.
    package var invertedAliases: [String] {
        descriptor.invertedKey ? [descriptor.flag.replacingOccurrences(of: "-", with: "_")] : []
    }

    /// The command-line flag.
    package var flag: String { "--" + descriptor.flag }

    /// Every key `config.toml` may hold.
    package static let fileKeys: [String] = allCases.filter { $0.key == $0.rawValue }.flatMap { [$0.key] + $0.invertedAliases }
}
