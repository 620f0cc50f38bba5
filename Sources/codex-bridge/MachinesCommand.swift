import ArgumentParser
import BridgeClient
import BridgeFleet
import BridgeOps
import BridgeProtocol
import BridgeStore
import Discovery
import Foundation
import Logging

/// `codex-bridge machines add|list|remove|rename`: the other workstations this bridge carries to its phones
/// (a phone that asks for the fleet sees their threads beside this one's).
struct MachinesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "machines",
        abstract: "Link other workstations' bridges to this one, so its phones see every workstation.",
        discussion: """
            On the other workstation run `codex-bridge pair --json` and pass its url here: this bridge pairs with it \
            as a device (platform "bridge"), with the scopes that code gives. A running `serve` links a machine \
            added here within a second.
            """,
        subcommands: [Add.self, List.self, Remove.self, Rename.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Pair with another workstation's bridge and link it.",
            discussion: """
                URL: the pairing URL `codex-bridge pair --json` prints there (the web or codex-bridge:// form). Or the \
                pairing code `codex-bridge pair` shows there, with --host and --port (and --fingerprint for a TLS \
                bridge: its CA's, `codex-bridge tls` there).
                """)
        @OptionGroup var state: StateOptions

        @Argument(help: ArgumentHelp("The other bridge's pairing URL, or its pairing code.", valueName: "url-or-code"))
        var url: String

        @Option(help: ArgumentHelp("With a pairing code: the other bridge's host.", valueName: "host"))
        var host: String?

        @Option(help: ArgumentHelp("With a pairing code: the other bridge's port.", valueName: "port"))
        var port: Int?

        @Option(help: ArgumentHelp("With a pairing code: the other bridge's CA fingerprint (sha256, hex).", valueName: "hex"))
        var fingerprint: String?

        @Option(help: ArgumentHelp("The machine's name here (default: the name it gives itself).", valueName: "name"))
        var name: String?

        @Flag(help: "Print the linked machine as JSON.")
        var json = false

        func run() async throws {
            let paths = state.paths
            let identity = try ServerIdentity.loadOrCreate(paths: paths)
            let machine: MachineStore.Machine
            let store = try MachinesCommand.openStore(paths)
            // A URL, or a code with the address given beside it.
            let isCode = host != nil || port != nil
            if !isCode, !url.contains("://") {
                throw CommandFailure("\"\(url.prefix(80))\" is not a pairing URL; to link with a pairing code, give --host and --port too")
            }
            do {
                let target = try MachinePairing.target(
                    url: isCode ? nil : url, host: host, port: port, fingerprint: fingerprint, code: isCode ? url : nil)
                machine = try await MachinePairing.link(
                    target, home: MachineRef(id: identity.id, name: identity.name), name: name, store: store
                ) { pending in
                    Terminal.say("The other workstation confirms pairings: there, allow " + MachinesCommand.pendingText(pending))
                }
            } catch let failure as MachinePairing.Failure {
                throw CommandFailure(failure.description)
            } catch {
                throw CommandFailure("\(error)")
            }
            if json {
                Terminal.say(try DevicesCommand.json(Entry(machine)))
            } else {
                Terminal.say(
                    "Linked \(Terminal.field(machine.name)) (\(Terminal.field(machine.id))). A running `serve` carries its threads to phones within a second."
                )
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the linked machines and their state.")
        @OptionGroup var state: StateOptions

        @Flag(help: "Print a JSON array instead of a table.")
        var json = false

        func run() async throws {
            let machines: [Entry]
            if FileManager.default.fileExists(atPath: state.paths.databaseFile.path) {
                machines = try MachinesCommand.openStore(state.paths).all().map(Entry.init)
            } else {
                machines = []
            }
            try DevicesCommand.show(
                machines, json: json, none: "No linked machines. Run `codex-bridge machines add URL` with another bridge's pairing URL.",
                table: { machines in
                    DevicesCommand.columns(
                        [["ID", "NAME", "ADDRESS", "STATE", "ADDED", "LAST CLOSED FOR"]]
                            + machines.map {
                                [$0.id, $0.name, $0.address, $0.state, DevicesCommand.minutes($0.addedAt), $0.error.map(\.shown) ?? ""]
                            })
                })
        }
    }

    static let idHelp = "The machine's id, a unique id prefix or its name (an id that starts with `-` goes after `--`)."

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Unlink a machine: a running server drops its threads from phones within a second.",
            discussion: "Its bridge still lists this one as a device: revoke it there with `codex-bridge devices revoke`.")
        @OptionGroup var state: StateOptions

        @Argument(help: ArgumentHelp(MachinesCommand.idHelp, valueName: "id"))
        var id: String

        func run() async throws {
            let store = try MachinesCommand.openStore(state.paths)
            let machine = try MachinesCommand.find(id, in: store)
            try await store.remove(machine.id)
            Terminal.say("Unlinked \(Terminal.field(machine.name)) (\(Terminal.field(machine.id))).")
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a linked machine (as this bridge's phones see it).")
        @OptionGroup var state: StateOptions

        @Argument(help: ArgumentHelp(MachinesCommand.idHelp, valueName: "id"))
        var id: String

        @Argument(help: ArgumentHelp("The new name (1 to 64 characters).", valueName: "name"))
        var name: String

        func run() async throws {
            do {
                try MachinePairing.checkName(name)
            } catch let failure as MachinePairing.Failure {
                throw ValidationError(failure.description)
            }
            let store = try MachinesCommand.openStore(state.paths)
            let machine = try MachinesCommand.find(id, in: store)
            try await store.rename(machine.id, to: name)
            Terminal.say("Renamed \(Terminal.field(machine.id)) to \(Terminal.field(name)).")
        }
    }

    /// One machine as `list --json` and `add --json` print it (no credential).
    struct Entry: Encodable {
        var id: String
        var name: String
        var address: String
        var state: String
        var addedAt: Date
        /// Why the running bridge closed the link the last time it did (`bad_frame`, `over_budget`).
        var error: WireError?

        init(_ machine: MachineStore.Machine) {
            id = machine.id
            name = machine.name
            address = machine.address
            state = machine.state
            addedAt = machine.addedAt
            error = machine.errorCode.map { WireError(code: BridgeErrorCode($0), message: machine.errorMessage ?? "") }
        }
    }

    /// What to allow on a bridge that makes the pairing wait: its check code and the command, as the other bridge
    /// sent them (escaped, and cut to what a check code and a device id can be).
    static func pendingText(_ pending: PairingPending) -> String {
        let check = Terminal.field(String(pending.check.prefix(16)))
        let device = Terminal.field(String(pending.deviceId.prefix(64)))
        return "check code \(check) (codex-bridge devices allow \(device) --check \(check)). Waiting…"
    }

    static func openStore(_ paths: StatePaths) throws -> MachineStore {
        MachineStore(database: try DevicesCommand.openRegistry(paths).database)
    }

    static func find(_ reference: String, in store: MachineStore) throws -> MachineStore.Machine {
        guard let machine = try store.find(reference.trimmingCharacters(in: .whitespaces)) else {
            throw CommandFailure(
                "no linked machine \(DevicesCommand.shown(String(reference.prefix(64)))) (see `codex-bridge machines list`)")
        }
        return machine
    }
}

extension WireError {
    /// `code: message`, as a table cell.
    fileprivate var shown: String { "\(code.rawValue): \(message)" }
}
