import ArgumentParser
import BridgeServer
import BridgeStore
import Foundation
import Logging

/// `serve` options for the event journal's retention.
struct JournalOptions: ParsableArguments {
    @Option(
        name: .customLong("journal-max-age"),
        help: ArgumentHelp("Journaled events older than this are pruned (e.g. 7d, 12h, 30s).", valueName: "duration"))
    var maxAge = DurationArgument(.seconds(7 * 86400), text: "7d")

    @Option(
        name: .customLong("journal-max-bytes"),
        help: ArgumentHelp("The oldest journaled events beyond this many bytes in total are pruned.", valueName: "bytes"))
    var maxBytes: Int64 = 256 << 20

    func validate() throws {
        guard maxBytes >= 0 else { throw ValidationError("--journal-max-bytes must not be negative") }
    }

    var retention: JournalRetention {
        JournalRetention(maxAge: Double(maxAge.duration.components.seconds) + Double(maxAge.duration.components.attoseconds) / 1e18, maxBytes: maxBytes)
    }

    /// The hub's storage in `database`.
    func storage(database: BridgeDatabase, logger: Logger) -> HubStorage {
        HubStorage(database: database, retention: retention, logger: logger)
    }
}
