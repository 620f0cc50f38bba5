import ArgumentParser
import BridgeOps
import BridgeProtocol
import BridgeServe
import BridgeStore
import BridgeTLS
import Foundation
import Logging
import Pairing

/// `codex-bridge pair`: mint a one-time pairing code and show it as a QR code, a URL and a JSON summary.
struct PairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair a phone: show a one-time pairing code as a QR code and a URL.",
        discussion: """
            Works while `serve` runs (in another terminal or as a service): the QR carries the port it bound. \
            The code is single use and expires after --ttl; the phone exchanges it for its own device token.
            """
    )

    /// The port used when no server is running and none is given.
    static let defaultPort = 9099

    @OptionGroup var state: StateOptions

    @Option(help: ArgumentHelp("How long the code stays valid: 90s, 10m, 1h or seconds.", valueName: "duration"))
    var ttl = DurationArgument(.seconds(600), text: "10m")

    @Option(
        name: .customLong("scope"),
        help: ArgumentHelp(
            "What the phone may do, comma-separated: observe, operate, approve, publish, run, admin, or all (default observe,operate,approve).",
            valueName: "scopes"),
        transform: DevicesCommand.scopes)
    var scopes: Scopes = .standard

    @Flag(help: "Print {url, webUrl, code, expiresAt, addresses, port, serverId, name, fingerprint, scopes} as JSON, without the QR code.")
    var json = false

    @Flag(help: "Show the codex-bridge:// URL for native apps instead of the web URL a phone's camera opens.")
    var app = false

    @Flag(name: .customLong("static"), help: "Put the shared secret in the QR instead of a one-time code (pre-shared-token clients).")
    var useStaticToken = false

    @Option(
        parsing: .singleValue, help: ArgumentHelp("Offer this host instead of the discovered addresses (repeatable).", valueName: "host"))
    var advertise: [String] = []

    @Flag(help: "Swap light and dark in the QR code (dark text on a light terminal).")
    var invert = false

    @Flag(help: "Draw the QR code white on black with ANSI colours (reads on any terminal background).")
    var ansi = false

    @Option(help: ArgumentHelp("Port to put in the URL (default: the running server's, else 9099).", valueName: "port"))
    var port: Int?

    func validate() throws {
        if let port, !(1...65535).contains(port) { throw ValidationError("--port must be between 1 and 65535") }
        if ttl.duration > .seconds(7 * 86400) { throw ValidationError("--ttl must be at most 7 days") }
        if useStaticToken, scopes != .standard {
            throw ValidationError("--scope does not apply to --static (the shared secret holds every scope)")
        }
    }

    func run() async throws {
        var logger = Logger(label: "codex-bridge.pair")
        logger.logLevel = .warning
        let paths = state.paths
        do {
            let invitation = try await makeInvitation(paths: paths, logger: logger)
            if json {
                let encoder = JSONEncoder()
                encoder.dateEncodingStrategy = .iso8601
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                Terminal.say(String(decoding: try encoder.encode(invitation.summary), as: UTF8.self))
            } else {
                let renderer = TerminalQRRenderer(invert: invert, style: ansi ? .ansi : .plain)
                Terminal.drawing(
                    (app ? "Scan with the codex-bridge app:\n\n" : "Scan with your phone's camera:\n\n")
                        + (try invitation.terminalText(renderer: renderer, app: app)))
            }
        } catch {
            Terminal.warn("error: \(error)\n")
            throw ExitCode.failure
        }
    }

    private func makeInvitation(paths: StatePaths, logger: Logger) async throws -> PairingInvitation {
        let running = ServerRecord.readRunning(paths: paths)
        let chosenPort: Int
        if let port {
            chosenPort = port
        } else if let running {
            chosenPort = running.port
        } else {
            // What `serve` would use: config.toml's listen port, else the default.
            let configured = (try? ServeConfigFile.load(paths.configFile))?.listen?.port
            chosenPort = configured.flatMap { $0 == 0 ? nil : $0 } ?? Self.defaultPort
            Terminal.warn("no server running; using port \(chosenPort)\(configured == nil ? "" : " (from \(paths.configFile.path))")")
        }
        let identity = try ServerIdentity.loadOrCreate(paths: paths)
        let addresses = try await AddressDiscovery(logger: logger).candidates(advertise: offered(running: running))
        if useStaticToken {
            let secret = try SharedSecret(paths: paths).loadOrCreate()
            let (fingerprint, trustFirst) = try await fingerprint(running: running)
            return try PairingInvitation(
                credential: .staticToken(secret), identity: identity, port: chosenPort, addresses: addresses,
                fingerprint: fingerprint, trustFirst: trustFirst)
        }
        let registry = try ServePairing.openRegistry(paths: paths, logger: logger)
        let (fingerprint, trustFirst) = try await fingerprint(running: running)
        let invitation = try await PairingInvitation.mint(
            registry: registry, ttl: ttl.duration, scopes: scopes, identity: identity, port: chosenPort, addresses: addresses,
            fingerprint: fingerprint, trustFirst: trustFirst)
        await DevicesCommand.audit(registry, kind: "pairDevice", deviceId: nil, detail: "scopes \(scopes), valid \(ttl.text)")
        return invitation
    }

    /// The fingerprint clients pin and whether it is the workstation's CA (the web URL then starts at the trust
    /// page): the running server's; with no server running, what config.toml would make it serve (the
    /// workstation's CA is made now when it does not exist yet, as `serve` would on its first start).
    private func fingerprint(running: ServerRecord?) async throws -> (String?, trustFirst: Bool) {
        if let running { return (running.fingerprint, running.workstationCA ?? false) }
        let config = try? ServeConfigFile.load(state.paths.configFile)
        if let cert = config?.tlsCert, let key = config?.tlsKey {
            return (try? CertificateFiles(certificate: URL(fileURLWithPath: cert), key: URL(fileURLWithPath: key)).fingerprint(), false)
        }
        guard config?.tls == true, config?.tlsTailscale != true else { return (nil, false) }
        if let authority = try? TLSStore(directory: state.paths.tlsDirectory).loadAuthority() { return (authority.fingerprint, true) }
        // As `serve` would make it on its first start, so the pairing URL carries the fp it will serve.
        return (try await ServeTLS.prepare(paths: state.paths, listenHosts: [], logger: TLSCommand.quietLogger).0.fingerprint, true)
    }

    /// `--advertise`, else what a server bound to specific addresses listens on, else nothing (discover).
    private func offered(running: ServerRecord?) -> [String] {
        if !advertise.isEmpty { return advertise }
        if let running, !ServePairing.isWildcard(running.host), !running.addresses.isEmpty { return running.addresses }
        return []
    }
}
