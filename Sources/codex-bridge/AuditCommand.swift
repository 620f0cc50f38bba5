import ArgumentParser
import BridgeOps
import BridgeProtocol
import BridgeServe
import BridgeStore
import Foundation

/// `codex-bridge audit`: who did what — every state-changing request, refusals, pairings, scope changes,
/// revocations, approvals from notifications and from the desk.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show the audit log: who did what, from where, on which thread, and how it ended.",
        discussion: "Kept as long as the journal keeps events (serve --journal-max-age). Oldest first."
    )

    @OptionGroup var state: StateOptions

    @Flag(
        help:
            "Print one JSON object per line (at, actor, deviceId, deviceName, address, kind, threadId, outcome, detail, count, lastAt, onBehalfOf)."
    )
    var json = false

    @Option(help: ArgumentHelp("Only this device's actions.", valueName: "id"))
    var device: String?

    @Option(help: ArgumentHelp("Only the last DURATION: 90s, 10m, 1h, 7d.", valueName: "duration"))
    var since: DurationArgument?

    @Option(help: ArgumentHelp("At most this many entries, the newest (default 1000).", valueName: "n"))
    var limit = 1000

    func validate() throws {
        if !(1...100_000).contains(limit) { throw ValidationError("--limit must be between 1 and 100000") }
    }

    func run() async throws {
        guard FileManager.default.fileExists(atPath: state.paths.databaseFile.path) else {
            if !json { Terminal.say("Nothing audited yet.") }
            return
        }
        let registry = try DevicesCommand.openRegistry(state.paths)
        let log = AuditLog(database: registry.database)
        let after = since.map { log.timestamp - Double($0.duration.components.seconds) - Double($0.duration.components.attoseconds) / 1e18 }
        let entries = try await log.entries(deviceId: device.map(DevicesCommand.deviceId), since: after, limit: limit).reversed()
        if json {
            for entry in entries { Terminal.say(try Self.jsonLine(entry)) }
            return
        }
        guard !entries.isEmpty else {
            Terminal.say("Nothing audited\(since.map { " in the last \($0.text)" } ?? "")\(device.map { " for device \($0)" } ?? "").")
            return
        }
        Terminal.say(Self.table(Array(entries)))
    }

    /// The entries as aligned columns, oldest first as given.
    static func table(_ entries: [AuditEntry]) -> String {
        let header = ["TIME", "WHO", "ADDRESS", "ACTION", "THREAD", "OUTCOME", "COUNT", "DETAIL"]
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let rows = entries.map { entry in
            [
                format.string(from: Date(timeIntervalSince1970: entry.at)), Self.who(entry), entry.address ?? "-", entry.kind,
                entry.threadId.map { String($0.prefix(13)) } ?? "-", entry.outcome, String(entry.count ?? 1), entry.detail ?? "",
            ]
        }
        return DevicesCommand.columns([header] + rows)
    }

    /// One entry as `--json` prints it: one line, control and format characters escaped as JSON escapes.
    static func jsonLine(_ entry: AuditEntry) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var line = Line(entry)
        line.id = entry.id
        return ControlCharacters.jsonEscaped(String(decoding: try encoder.encode(line), as: UTF8.self))
    }

    /// "Ana's iPhone (k3q9m2xa7bzt)", "shared secret", "desk TUI", "notification (…)", "workstation".
    static func who(_ entry: AuditEntry) -> String {
        let device = entry.deviceId.map { id in entry.deviceName.map { "\($0) (\(id))" } ?? id }
        guard let behalf = entry.onBehalfOf else { return who(entry.actor, device: device, name: entry.deviceName) }
        // A linked home bridge's request: who it says it made it for, then the link.
        let home = behalf.deviceId.map { id in behalf.name.map { "\($0) (\(id))" } ?? id }
        return who(behalf.actor, device: home, name: behalf.name) + " via " + (device ?? "a link")
    }

    private static func who(_ actor: AuditActor, device: String?, name: String?) -> String {
        switch actor {
        case .device: return device ?? "device"
        case .sharedSecret: return "shared secret"
        case .desk: return "desk TUI"
        case .notification: return "notification" + (device.map { ": \($0)" } ?? name.map { ": \($0)" } ?? "")
        case .workstation: return "workstation"
        case .bridge: return "bridge"
        }
    }

    /// One JSON line: `at` as ISO 8601 and as Unix seconds.
    struct Line: Codable {
        var id: Int64?
        var at: Double
        var time: String
        var actor: AuditActor
        var who: String
        var deviceId: String?
        var deviceName: String?
        var address: String?
        var kind: String
        var threadId: String?
        var outcome: String
        var detail: String?
        /// How many alike refusals the entry stands for (1 for every other entry).
        var count: Int
        /// The last of them, when more than one.
        var lastAt: Double?
        /// For a linked home bridge's request: who it made it for, as it reported it.
        var onBehalfOf: OnBehalfOf?

        init(_ entry: AuditEntry) {
            at = entry.at
            time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: entry.at))
            actor = entry.actor
            who = AuditCommand.who(entry)
            deviceId = entry.deviceId
            deviceName = entry.deviceName
            address = entry.address
            kind = entry.kind
            threadId = entry.threadId
            outcome = entry.outcome
            detail = entry.detail
            count = entry.count ?? 1
            lastAt = entry.lastAt
            onBehalfOf = entry.onBehalfOf
        }
    }
}
