import ArgumentParser
import BridgeOps
import BridgeServe
import Discovery
import Foundation

/// `codex-bridge discover`: list the bridges advertised over mDNS on the local network.
struct DiscoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "Find codex-bridge servers on the local network (mDNS, through avahi-daemon).",
        discussion: "Browses _codexd._tcp, resolves every server found and prints name, addresses, port, "
            + "protocol version and server id. Needs avahi-daemon."
    )

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    /// Accepted like every command's (the README promises it); discovery reads nothing from it.
    @OptionGroup var state: StateOptions

    @Option(help: ArgumentHelp("How long to browse at most: 3s, 500ms, 1.5s or a number of seconds (at most 1h).", valueName: "duration"))
    var timeout = DurationArgument(.seconds(3), text: "3s")

    func validate() throws {
        guard timeout.duration <= .seconds(3600) else { throw ValidationError("--timeout must be at most 1h (got \"\(timeout)\")") }
    }

    func run() async throws {
        let duration = timeout.duration
        let bridges: [DiscoveredBridge]
        do {
            bridges = try await MDNSBrowser.browse(timeout: duration)
        } catch let error as DiscoveryError {
            Terminal.warn("error: \(error.description)\n")
            throw ExitCode.failure
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Terminal.say(ControlCharacters.jsonEscaped(String(decoding: try encoder.encode(bridges), as: UTF8.self)))
        } else if bridges.isEmpty {
            Terminal.warn("No codex-bridge found on the local network within \(timeout).\n")
        } else {
            Terminal.say(Self.table(bridges))
        }
    }

    /// Aligned columns: NAME, ADDRESSES, PORT, VERSION, ID (and TLS).
    static func table(_ bridges: [DiscoveredBridge]) -> String {
        let header = ["NAME", "ADDRESSES", "PORT", "VERSION", "TLS", "ID"]
        let rows = bridges.map { bridge in
            [
                bridge.name,
                bridge.addresses.isEmpty ? bridge.host : bridge.addresses.joined(separator: ","),
                String(bridge.port),
                bridge.version.map(String.init) ?? "-",
                bridge.tls ? "yes" : "no",
                bridge.id ?? "-",
            ]
        }
        return DevicesCommand.columns([header] + rows)
    }
}
