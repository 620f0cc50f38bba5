import ArgumentParser
import BridgeClient
import BridgeOps
import BridgeProtocol
import BridgeStore
import Discovery
import Foundation
import Logging

/// `codex-bridge attach [URL]`: a terminal client on `BridgeClient`.
struct AttachCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Drive a bridge from this terminal: pair, start or open threads, watch output, answer approvals.",
        discussion: """
            URL is a pairing URL (codex-bridge://pair?…, from `codex-bridge pair`), or an address: host:port, \
            ws://, wss://, http:// or https://. Without URL, bridges on the local network are found over mDNS. \
            Pairing stores the device token in client-tokens.json in the state directory; later attaches use it.
            Type /help once attached.
            """
    )

    @Argument(help: "A pairing URL or the bridge's address.")
    var url: String?

    @Option(help: ArgumentHelp("A shared secret or device token (default: the token stored when pairing).", valueName: "token"))
    var token: String?

    @Option(
        help: ArgumentHelp(
            "approvalPolicy for /new: untrusted, on-failure, on-request or never (default: the bridge's).", valueName: "policy"))
    var approvalPolicy: String?

    @Option(help: ArgumentHelp("This device's name when pairing (default: the host name).", valueName: "name"))
    var deviceName: String?

    @OptionGroup var state: StateOptions

    func run() async throws {
        let store = ClientTokenStore(stateDirectory: state.paths.stateDirectory)
        let target: BridgeTarget
        let discovered: DiscoveredBridge?
        do {
            (target, discovered) = try await resolveTarget(store: store)
        } catch let error as BridgeClientError {
            throw CommandFailure(error.message)
        }
        let (credential, serverId, bound) = try credential(for: target, discovered: discovered, store: store)
        var configuration = BridgeClientConfiguration(target: bound, token: credential)
        if let deviceName { configuration.device.name = deviceName }
        configuration.onPairingPending = { pending in
            Terminal.say("Confirm on your workstation: " + MachinesCommand.pendingText(pending))
        }
        var logger = Logger(label: "codex-bridge.attach")
        logger.logLevel = .critical  // the terminal shows what matters; BridgeClient's logs would interleave
        let client = BridgeClient(configuration: configuration, logger: logger)
        let ack: HelloAck
        do {
            ack = try await client.connect()
        } catch {
            throw CommandFailure(error.message)
        }
        let server = ack.server?.id ?? serverId ?? "unknown"
        if let deviceToken = ack.deviceToken {
            let endpoints = bound.candidates.map { "\($0.urlHost):\($0.port)" }
            try store.save(
                serverId: server,
                .init(
                    token: deviceToken, deviceId: ack.deviceId, name: ack.server?.name, endpoints: endpoints,
                    fingerprint: bound.pin?.fingerprint))
        }
        var session = AttachSession(client: client, approvalPolicy: approvalPolicy)
        await session.run(ack: ack, paired: ack.deviceToken != nil, tokenFile: store.file.path)
    }

    /// The URL given, or a bridge found over mDNS: the one this client holds a credential for when exactly one
    /// does, else the person chooses.
    private func resolveTarget(store: ClientTokenStore) async throws -> (BridgeTarget, DiscoveredBridge?) {
        if let url { return (try BridgeTarget(parsing: url), nil) }
        var found: [DiscoveredBridge]
        do {
            found = try await MDNSBrowser.browse(timeout: .seconds(3))
        } catch let error as DiscoveryError {
            throw CommandFailure("\(error.description) (or pass the bridge's URL: codex-bridge attach URL)")
        }
        guard !found.isEmpty else {
            throw CommandFailure("no codex-bridge found on the local network; pass a URL (codex-bridge pair prints one)")
        }
        let known = store.load()
        let paired = found.filter { bridge in bridge.id.map { known[$0] != nil } ?? false }
        if !paired.isEmpty { found = paired }
        var index = 0
        if found.count > 1 {
            for (number, bridge) in found.enumerated() {
                let address = "\(bridge.addresses.first ?? bridge.host):\(bridge.port)"
                Terminal.say(
                    "\(number + 1). \(Terminal.field(bridge.name))  \(Terminal.field(address))  id \(Terminal.field(bridge.id ?? "-"))")
            }
            Terminal.write("Which one? [1-\(found.count)] ")
            guard let line = readLine(), let choice = Int(line.trimmingCharacters(in: .whitespaces)), (1...found.count).contains(choice)
            else {
                throw CommandFailure("no bridge chosen")
            }
            index = choice - 1
        }
        let bridge = found[index]
        let hosts = bridge.addresses.isEmpty ? [bridge.host] : bridge.addresses
        let endpoints = hosts.map { BridgeEndpoint(host: $0, port: bridge.port, tls: bridge.tls) }
        return (.endpoints(endpoints, pin: bridge.txt["fp"].flatMap(CertificatePin.init(fingerprint:))), bridge)
    }

    /// The credential to present and the target to present it to. A stored device token goes only where it
    /// belongs: for a bridge paired over TLS, over TLS to the pinned certificate (a plain `host:port` or an
    /// mDNS answer is upgraded to that; a plaintext answer is refused, never downgraded); for one paired in
    /// plaintext, only to an address it was paired on. `--token` is used as given (the person named it).
    private func credential(
        for target: BridgeTarget, discovered: DiscoveredBridge?, store: ClientTokenStore
    ) throws -> (String?, String?, BridgeTarget) {
        if let token { return (token, target.serverId ?? discovered?.id, target) }
        // A pairing URL's code is always redeemed (the person asked to pair); stored tokens are for later.
        if case .pairing(let url) = target { return (nil, url.serverId, target) }
        let noToken = CommandFailure(
            "no token for this bridge: pair with the URL `codex-bridge pair` prints, or pass --token (`codex-bridge token show`)")
        var found: (String, ClientTokenStore.Entry)?
        if let id = discovered?.id, let entry = store.entry(serverId: id) {
            found = (id, entry)
        } else {
            found = target.candidates.lazy.compactMap { store.entry(endpoint: "\($0.urlHost):\($0.port)") }.first
        }
        guard let (serverId, entry) = found else { throw noToken }
        if let fingerprint = entry.fingerprint {
            guard let pin = CertificatePin(fingerprint: fingerprint) else { throw noToken }
            if let discovered {
                guard discovered.tls else {
                    throw CommandFailure(
                        "\(discovered.name) was paired over TLS but now answers without it; not sending its token in plaintext (pair again if this is expected)"
                    )
                }
                if let advertised = discovered.txt["fp"], advertised.lowercased() != fingerprint.lowercased() {
                    throw CommandFailure(
                        "\(discovered.name) presents another certificate than the one paired; pair again (`codex-bridge pair`)")
                }
            }
            let endpoints = target.candidates.map { BridgeEndpoint(host: $0.host, port: $0.port, tls: true, path: $0.path) }
            return (entry.token, serverId, .endpoints(endpoints, pin: pin))
        }
        let paired = target.candidates.filter { entry.endpoints.contains("\($0.urlHost):\($0.port)") }
        guard !paired.isEmpty else {
            throw CommandFailure(
                "this bridge's token was paired on \(entry.endpoints.joined(separator: ", ")), not this address; pass --token to use it here anyway"
            )
        }
        return (entry.token, serverId, .endpoints(paired, pin: nil))
    }
}

extension Error {
    /// A one-line message for the terminal.
    var message: String {
        switch self {
        case let error as BridgeClientError: error.message
        case let error as BridgeRequestError: error.description
        default: "\(self)"
        }
    }
}
