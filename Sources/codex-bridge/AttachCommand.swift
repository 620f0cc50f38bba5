import ArgumentParser
import BridgeClient
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

    @Option(help: ArgumentHelp("approvalPolicy for /new: untrusted, on-failure, on-request or never (default: the bridge's).", valueName: "policy"))
    var approvalPolicy: String?

    @Option(help: ArgumentHelp("This device's name when pairing (default: the host name).", valueName: "name"))
    var deviceName: String?

    @OptionGroup var state: StateOptions

    func run() async throws {
        let store = ClientTokenStore(stateDirectory: state.paths.stateDirectory)
        let target: BridgeTarget
        let discoveredId: String?
        do {
            (target, discoveredId) = try await resolveTarget()
        } catch let error as BridgeClientError {
            throw CommandFailure(error.message)
        }
        let (credential, serverId) = try credential(for: target, discoveredId: discoveredId, store: store)
        var configuration = BridgeClientConfiguration(target: target, token: credential)
        if let deviceName { configuration.device.name = deviceName }
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
            let endpoints = target.candidates.map { "\($0.urlHost):\($0.port)" }
            try store.save(serverId: server, .init(token: deviceToken, deviceId: ack.deviceId, name: ack.server?.name, endpoints: endpoints))
        }
        var session = AttachSession(client: client, approvalPolicy: approvalPolicy)
        await session.run(ack: ack, paired: ack.deviceToken != nil, tokenFile: store.file.path)
    }

    /// The URL given, or a bridge picked from the ones discovered.
    private func resolveTarget() async throws -> (BridgeTarget, String?) {
        if let url { return (try BridgeTarget(parsing: url), nil) }
        let found: [DiscoveredBridge]
        do {
            found = try await MDNSBrowser.browse(timeout: .seconds(3))
        } catch let error as DiscoveryError {
            throw CommandFailure("\(error.description) (or pass the bridge's URL: codex-bridge attach URL)")
        }
        guard !found.isEmpty else {
            throw CommandFailure("no codex-bridge found on the local network; pass a URL (codex-bridge pair prints one)")
        }
        var index = 0
        if found.count > 1 {
            for (number, bridge) in found.enumerated() {
                print("\(number + 1). \(bridge.name)  \(bridge.addresses.first ?? bridge.host):\(bridge.port)  id \(bridge.id ?? "-")")
            }
            FileHandle.standardOutput.write(Data("Which one? [1-\(found.count)] ".utf8))
            guard let line = readLine(), let choice = Int(line.trimmingCharacters(in: .whitespaces)), (1...found.count).contains(choice) else {
                throw CommandFailure("no bridge chosen")
            }
            index = choice - 1
        }
        let bridge = found[index]
        let hosts = bridge.addresses.isEmpty ? [bridge.host] : bridge.addresses
        let endpoints = hosts.map { BridgeEndpoint(host: $0, port: bridge.port, tls: bridge.tls) }
        return (.endpoints(endpoints, pin: bridge.txt["fp"].flatMap(CertificatePin.init(fingerprint:))), bridge.id)
    }

    /// `--token`, else a stored device token (by server id, or by address), else the pairing URL's own.
    private func credential(for target: BridgeTarget, discoveredId: String?, store: ClientTokenStore) throws -> (String?, String?) {
        if let token { return (token, target.serverId ?? discoveredId) }
        // A pairing URL's code is always redeemed (the user asked to pair); stored tokens are for later attaches.
        if case .pairing(let url) = target { return (nil, url.serverId) }
        if let discoveredId, let entry = store.entry(serverId: discoveredId) { return (entry.token, discoveredId) }
        for endpoint in target.candidates {
            if let (serverId, entry) = store.entry(endpoint: "\(endpoint.urlHost):\(endpoint.port)") {
                return (entry.token, serverId)
            }
        }
        if case .endpoints = target, store.load().count == 1, let (serverId, entry) = store.load().first {
            return (entry.token, serverId)
        }
        throw CommandFailure(
            "no token for this bridge: pair with the URL `codex-bridge pair` prints, or pass --token (`codex-bridge token show`)")
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
