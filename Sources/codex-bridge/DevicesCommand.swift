import ArgumentParser
import BridgeOps
import BridgeProtocol
import BridgeServe
import BridgeStore
import Foundation
import Logging

/// `codex-bridge devices list|scope|revoke|pending|allow|deny`: the paired phones, what each may do, and the
/// pairings waiting for this workstation's confirmation.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List, scope or revoke paired devices; allow or deny pairings waiting for confirmation.",
        subcommands: [List.self, SetScope.self, Rename.self, Revoke.self, Pending.self, Allow.self, Deny.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List paired devices (revoked ones too) with their scopes.")
        @OptionGroup var state: StateOptions

        @Flag(help: "Print a JSON array instead of a table.")
        var json = false

        func run() async throws {
            let devices = try await DevicesCommand.read(state) { try await $0.list().map(Entry.init) }
            try DevicesCommand.show(
                devices, json: json, none: "No paired devices. Run `codex-bridge pair` to pair a phone.", table: Self.table)
        }

        /// Aligned columns, newest information last.
        static func table(_ devices: [Entry]) -> String {
            let header = ["ID", "NAME", "PLATFORM", "SCOPES", "PAIRED", "LAST SEEN", "LAST ADDRESS", "ACKED", "STATUS"]
            let rows = devices.map { device in
                [
                    device.id, device.name, device.platform ?? "-", device.scopes.description, DevicesCommand.minutes(device.pairedAt),
                    device.lastSeenAt.map(DevicesCommand.minutes) ?? "-", device.lastAddress ?? "-", String(device.ackedSeq),
                    device.revoked ? "revoked" : "active",
                ]
            }
            return DevicesCommand.columns([header] + rows)
        }
    }

    struct SetScope: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "scope",
            abstract: "Set what a device may do; its open connections follow within 2 s.",
            discussion: """
                Scopes: observe (see threads, events, diffs, files), operate (start and drive threads, uploads, git \
                commit/branch/switch), approve (answer approvals and questions, also from notifications), publish (push, \
                pull requests), run (commands), admin (pair, scope and revoke devices from the phone), or all.
                """
        )
        @OptionGroup var state: StateOptions

        @Argument(help: ArgumentHelp("The device id (see `codex-bridge devices list`).", valueName: "id"))
        var id: String

        @Argument(
            help: ArgumentHelp("Comma-separated scopes, e.g. observe,approve (or all).", valueName: "scopes"),
            transform: DevicesCommand.scopes)
        var scopes: Scopes

        func run() async throws {
            let registry = try DevicesCommand.openRegistry(state.paths)
            let id = DevicesCommand.deviceId(id)
            let record = try await DevicesCommand.failing { try await registry.setScopes(id: id, scopes: scopes) }
            await DevicesCommand.audit(registry, kind: "setDeviceScopes", deviceId: id, detail: "\(id): \(scopes)")
            Terminal.say("Device \(record.id) (\(shown(record.name))) may now: \(record.scopes). A running server applies it within 2 s.")
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give a paired device another name (1 to 64 characters, no control characters).")
        @OptionGroup var state: StateOptions

        @Argument(help: ArgumentHelp("The device id (see `codex-bridge devices list`).", valueName: "id"))
        var id: String

        @Argument(help: ArgumentHelp("The new name, e.g. \"Ana's iPhone\".", valueName: "name"))
        var name: String

        func run() async throws {
            let registry = try DevicesCommand.openRegistry(state.paths)
            let id = DevicesCommand.deviceId(id)
            let before = try? await registry.device(id: id)
            let record = try await DevicesCommand.failing { try await registry.rename(id: id, to: name) }
            await DevicesCommand.audit(registry, kind: "renameDevice", deviceId: id, detail: "\(id): \(record.name)", name: record.name)
            Terminal.say("Renamed device \(record.id): \(shown(before?.name ?? "?")) is now \(shown(record.name)).")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a device: its token stops working and a running server closes its connections within 2 s."
        )
        @OptionGroup var state: StateOptions

        @Argument(help: ArgumentHelp("The device id (see `codex-bridge devices list`).", valueName: "id"))
        var id: String

        func run() async throws {
            let registry = try DevicesCommand.openRegistry(state.paths)
            let id = DevicesCommand.deviceId(id)
            let record = try await DevicesCommand.failing { try await registry.revoke(id: id) }
            await DevicesCommand.audit(registry, kind: "revokeDevice", deviceId: id, detail: id)
            Terminal.say("Revoked device \(record.id) (\(shown(record.name))).")
        }
    }

    struct Pending: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "List what waits for this workstation: pairings to confirm (serve --confirm-pairing) and devices asking for more scopes.")
        @OptionGroup var state: StateOptions

        @Flag(help: "Print a JSON array instead of a table.")
        var json = false

        func run() async throws {
            let requests = try await DevicesCommand.read(state) { registry in
                let pairings = try await registry.pairingRequests().map(PendingEntry.init)
                var asks: [PendingEntry] = []
                for request in try await registry.scopeRequests() {
                    asks.append(PendingEntry(request, device: try await registry.device(id: request.deviceId)))
                }
                return pairings + asks
            }
            try DevicesCommand.show(
                requests, json: json, none: "No pairing waits for confirmation and no device asks for scopes.", table: Self.table)
        }

        /// Aligned columns and what to do next.
        static func table(_ requests: [PendingEntry]) -> String {
            let header = ["ID", "WHAT", "NAME", "PLATFORM", "ADDRESS", "CHECK", "SCOPES", "EXPIRES"]
            let rows = requests.map {
                [
                    $0.id, $0.kind == "scopes" ? "more scopes" : "pairing", $0.name, $0.platform ?? "-", $0.address ?? "-", $0.check,
                    $0.scopes.description, DevicesCommand.minutes($0.expiresAt),
                ]
            }
            return DevicesCommand.columns([header] + rows)
                + "\n\nWith the phone in your hand: codex-bridge devices allow ID --check CODE-IT-SHOWS (or deny ID)"
        }
    }

    struct Allow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Allow a waiting pairing (the phone gets its device token) or a device's request for more scopes. Takes the check code the phone shows."
        )
        @OptionGroup var state: StateOptions

        @Argument(help: ArgumentHelp("The waiting device's id (see `codex-bridge devices pending`).", valueName: "id"))
        var id: String

        @Option(
            help: ArgumentHelp("The four-digit check code the phone shows (asked for on a terminal when not given).", valueName: "code"))
        var check: String?

        func run() async throws {
            try await DevicesCommand.decide(state: state, id: id, allow: true, check: check)
        }
    }

    struct Deny: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Deny a waiting pairing (the phone's connection is closed and nothing is stored) or a device's request for more scopes.")
        @OptionGroup var state: StateOptions

        @Argument(help: ArgumentHelp("The waiting device's id (see `codex-bridge devices pending`).", valueName: "id"))
        var id: String

        func run() async throws {
            try await DevicesCommand.decide(state: state, id: id, allow: false)
        }
    }

    /// Records the decision, then waits (up to 5 s) for the server holding the phone's socket to act on it.
    /// Allowing takes the phone's check code: `check`, else asked for on a terminal (``PairingCheckPrompt``).
    static func decide(state: StateOptions, id rawId: String, allow: Bool, check: String? = nil) async throws {
        let registry = try openRegistry(state.paths)
        let id = deviceId(rawId)
        // A paired device asking for more scopes (`requestScopes`) is decided here too.
        let pairing = try await registry.pairingRequests().contains { $0.deviceId == id }
        if !pairing, let asked = try await registry.scopeRequests().first(where: { $0.deviceId == id }) {
            return try await decideScopes(registry: registry, request: asked, allow: allow, check: check)
        }
        var check = check
        if allow {
            let waiting = try await registry.pairingRequests().first { $0.deviceId == id }
            guard let waiting else { throw CommandFailure(DeviceRegistryError.noPairingRequest(id).description) }
            check = try PairingCheckPrompt.code(given: check, request: waiting)
        }
        let request = try await failing { [check] in try await registry.decidePairing(id: id, allow: allow, check: check) }
        await audit(
            registry, kind: allow ? "allowPairing" : "denyPairing", deviceId: id,
            detail: "\(request.name), check \(request.checkCode), scopes \(request.scopes)", name: request.name)
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, (try? await registry.pairingDecision(id: id)) != .gone {
            try await Task.sleep(for: .milliseconds(100))
        }
        let served = (try? await registry.pairingDecision(id: id)) == .gone
        switch (allow, served) {
        case (true, true): Terminal.say("Allowed: device \(id) (\(shown(request.name))) is paired, with scopes \(request.scopes).")
        case (false, true): Terminal.say("Denied: the pairing of \(shown(request.name)) was refused; nothing was stored.")
        case (true, false): throw CommandFailure("allowed, but no running bridge took it up within 5 s (is `codex-bridge serve` running?)")
        case (false, false): Terminal.say("Denied: \(shown(request.name)) will not be paired.")
        }
    }

    /// Grants or refuses device `request.deviceId`'s request for more scopes; its connections follow within 2 s.
    static func decideScopes(registry: DeviceRegistry, request: ScopeRequestRecord, allow: Bool, check: String?) async throws {
        let id = request.deviceId
        let device = try await registry.device(id: id)
        let name = device?.name ?? "?"
        var check = check
        if allow {
            let description =
                "Device \(id): \(shown(name)) asks for \(request.scopes) (it may now: \(device?.scopes.description ?? "-")).\n"
            check = try PairingCheckPrompt.code(given: check, id: id, what: "more scopes", description: description)
        }
        _ = try await failing { [check] in try await registry.decideScopeRequest(id: id, allow: allow, check: check) }
        await audit(
            registry, kind: allow ? "allowScopes" : "denyScopes", deviceId: id,
            detail: "\(id): \(request.scopes), check \(request.checkCode)",
            name: name)
        if allow {
            Terminal.say("Allowed: device \(id) (\(shown(name))) may now also: \(request.scopes). A running server applies it within 2 s.")
        } else {
            Terminal.say("Denied: device \(id) (\(shown(name))) keeps its scopes.")
        }
    }

    /// One device as `list --json` prints it: never the token hash.
    struct Entry: Encodable {
        var id: String
        var name: String
        var platform: String?
        var scopes: Scopes
        var pairedAt: Date
        var lastSeenAt: Date?
        var lastAddress: String?
        var ackedSeq: Int64
        var revoked: Bool
        var revokedAt: Date?

        init(_ record: DeviceRecord) {
            id = record.id
            name = record.name
            platform = record.platform
            scopes = record.scopes
            pairedAt = record.pairedAt
            lastSeenAt = record.lastSeenAt
            lastAddress = record.lastAddress
            ackedSeq = record.ackedSeq
            revoked = record.isRevoked
            revokedAt = record.revokedAt
        }
    }

    /// One waiting pairing, or a device's request for more scopes, as `pending --json` prints it.
    struct PendingEntry: Encodable {
        /// `pairing` or `scopes`.
        var kind = "pairing"
        var id: String
        var name: String
        var platform: String?
        var address: String?
        var check: String
        var scopes: Scopes
        var requestedAt: Date
        var expiresAt: Date

        init(_ record: PairingRequestRecord) {
            id = record.deviceId
            name = record.name
            platform = record.platform
            address = record.address
            check = record.checkCode
            scopes = record.scopes
            requestedAt = record.createdAt
            expiresAt = record.expiresAt
        }

        /// A paired device asking for `record.scopes` on top of its own.
        init(_ record: ScopeRequestRecord, device: DeviceRecord?) {
            kind = "scopes"
            id = record.deviceId
            name = device?.name ?? "?"
            platform = device?.platform
            address = device?.lastAddress
            check = record.checkCode
            scopes = record.scopes
            requestedAt = record.createdAt
            expiresAt = record.expiresAt
        }
    }

    static func openRegistry(_ paths: StatePaths) throws -> DeviceRegistry {
        var logger = Logger(label: "codex-bridge.devices")
        logger.logLevel = .warning
        return try ServePairing.openRegistry(paths: paths, logger: logger)
    }

    /// `--scope`/`scope` argument: a comma-separated scope list.
    static func scopes(_ text: String) throws -> Scopes {
        do {
            return try Scopes(parsing: text)
        } catch {
            throw ValidationError(error.message)
        }
    }

    static func deviceId(_ text: String) -> String { text.trimmingCharacters(in: .whitespaces).lowercased() }

    /// Runs a registry change; its refusal becomes the command's one-line error.
    static func failing<T>(_ change: () async throws -> T) async throws -> T {
        do {
            return try await change()
        } catch let error as DeviceRegistryError {
            throw CommandFailure(error.description)
        }
    }

    /// Records a workstation command in the audit log (a failure to record does not fail the command).
    static func audit(_ registry: DeviceRegistry, kind: String, deviceId: String?, detail: String?, name: String? = nil) async {
        await registry.auditWorkstation(kind: kind, deviceId: deviceId, detail: detail, name: name)
    }

    /// What `read` finds in the registry; nothing when there is no database yet (without creating the state
    /// directory or the database).
    static func read<Entry>(_ state: StateOptions, _ read: (DeviceRegistry) async throws -> [Entry]) async throws -> [Entry] {
        guard FileManager.default.fileExists(atPath: state.paths.databaseFile.path) else { return [] }
        return try await read(openRegistry(state.paths))
    }

    /// Prints `entries` as JSON, or `none` when there are none, or as `table` makes them.
    static func show<Entry: Encodable>(_ entries: [Entry], json: Bool, none: String, table: ([Entry]) -> String) throws {
        if json {
            Terminal.say(try Self.json(entries))
        } else if entries.isEmpty {
            Terminal.say(none)
        } else {
            Terminal.say(table(entries))
        }
    }

    /// `value` as pretty JSON, control and format characters escaped (``ControlCharacters/jsonEscaped(_:)``).
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return ControlCharacters.jsonEscaped(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// A string from the store (a device's name, a thread id) as a terminal may show it: the one escaping rule
    /// (``ControlCharacters``), so what a device chose cannot drive the owner's terminal.
    static func shown(_ text: String) -> String { Terminal.field(text) }

    static func minutes(_ date: Date) -> String {
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd HH:mm"
        return format.string(from: date)
    }

    /// Rows as aligned columns (the last column unpadded), every cell ``shown(_:)``: every table a command prints
    /// goes through here.
    static func columns(_ rows: [[String]]) -> String {
        let rows = rows.map { $0.map(shown) }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
