import Foundation

/// What `serve` runs with: ``ServeOptions`` merged from the command line and `config.toml`, with the default
/// for every setting neither gives.
package struct ServeSettings: Equatable {
    package var listen = ListenAddress(host: "0.0.0.0", port: 9099)
    package var helloTimeout: Double = 10
    package var maxMessageBytes = 1 << 20
    package var maxUploadBytes = 20 << 20
    /// `--preview-port`; nil: the listen port + 1 (0 when that is 0).
    package var previewPort: Int?
    /// `--preview-origins`: the preview origins, on the ports after the preview port.
    package var previewOrigins = 16
    package var pingInterval: Double = 20
    package var logLevel = "info"
    package var logFormat = "text"
    package var qr = true
    package var mdns = true
    package var mdnsName: String?
    package var codex: String?
    package var codexConfig: [String] = []
    package var roots: [String] = []
    package var allowDangerFullAccess = false
    /// `--shared`: use the shared `codex app-server --listen unix://…` the terminal's Codex attaches to.
    package var shared = false
    /// `--shared-socket`: its socket (nil: Codex's own control socket under `$CODEX_HOME`).
    package var sharedSocket: String?
    /// `--shutdown-grace`: how long running turns may finish on SIGTERM/SIGINT.
    package var shutdownGrace = DurationArgument(.seconds(30), text: "30s")
    package var tls = false
    /// A certificate chain and key the user provides (both or neither); they imply TLS.
    package var tlsCert: String?
    package var tlsKey: String?
    /// Serve this machine's Tailscale certificate (`tailscale cert`), offering its MagicDNS name first.
    package var tlsTailscale = false
    package var journalMaxAge = DurationArgument(.seconds(7 * 86400), text: "7d")
    package var journalMaxBytes: Int64 = 256 << 20
    package var requestHeadTimeout: Double = 5
    package var maxUnauthenticated = 512
    package var maxUnauthenticatedPerAddress = 128
    /// Notifications and the sleep inhibitor.
    package var push = PushSettings()
    /// `--confirm-pairing`: pairings wait for `codex-bridge devices allow`.
    package var confirmPairing = false
    /// How long a pairing waits for it (5 minutes; tests shorten it).
    package var confirmPairingTimeout = DurationArgument(.seconds(300), text: "5m")
    /// How long the startup QR's code is valid (a hidden flag, for tests).
    package var startupCodeTTL = DurationArgument(.seconds(600), text: "10m")

    /// The defaults.
    package init() {}

    /// `options` where they say something, else the defaults. TLS is on when asked for or implied by a
    /// certificate; off means no certificate at all.
    package init(_ options: ServeOptions) {
        listen = options.listen ?? listen
        helloTimeout = options.helloTimeout ?? helloTimeout
        maxMessageBytes = options.maxMessageBytes ?? maxMessageBytes
        maxUploadBytes = options.maxUploadBytes ?? maxUploadBytes
        previewPort = options.previewPort ?? previewPort
        previewOrigins = options.previewOrigins ?? previewOrigins
        pingInterval = options.pingInterval ?? pingInterval
        logLevel = options.logLevel ?? logLevel
        logFormat = options.logFormat ?? logFormat
        qr = options.qr ?? qr
        mdns = options.mdns ?? mdns
        mdnsName = options.mdnsName
        codex = options.codex
        codexConfig = options.codexConfig ?? []
        roots = options.roots ?? []
        allowDangerFullAccess = options.allowDangerFullAccess ?? false
        shared = options.shared ?? false
        sharedSocket = options.sharedSocket
        shutdownGrace = options.shutdownGrace ?? shutdownGrace
        tls = options.tls ?? (options.tlsCert != nil || options.tlsTailscale == true)
        if tls {
            tlsTailscale = options.tlsTailscale ?? false
            tlsCert = options.tlsCert
            tlsKey = options.tlsKey
        }
        journalMaxAge = options.journalMaxAge ?? journalMaxAge
        journalMaxBytes = options.journalMaxBytes ?? journalMaxBytes
        requestHeadTimeout = options.requestHeadTimeout ?? requestHeadTimeout
        maxUnauthenticated = options.maxUnauthenticated ?? maxUnauthenticated
        maxUnauthenticatedPerAddress = options.maxUnauthenticatedPerAddress ?? maxUnauthenticatedPerAddress
        push = PushSettings(options)
        confirmPairing = options.confirmPairing ?? false
        confirmPairingTimeout = options.confirmPairingTimeout ?? confirmPairingTimeout
        startupCodeTTL = options.startupCodeTTL ?? startupCodeTTL
    }

    /// The journal's maximum age in seconds.
    package var journalMaxAgeSeconds: Double {
        Double(journalMaxAge.duration.components.seconds) + Double(journalMaxAge.duration.components.attoseconds) / 1e18
    }
}
