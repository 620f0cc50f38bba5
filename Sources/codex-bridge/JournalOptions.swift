import ArgumentParser
import BridgeHub
import BridgeServer
import BridgeStore
import Foundation
import Logging

/// `serve` options for the event journal's retention.
struct JournalOptions: ParsableArguments {
    @Option(
        name: .customLong("journal-max-age"),
        help: ArgumentHelp("Journaled events older than this are pruned (e.g. 7d, 12h, 30s; default 7d).", valueName: "duration"))
    var maxAge: DurationArgument?

    @Option(
        name: .customLong("journal-max-bytes"),
        help: ArgumentHelp(
            "The oldest journaled events beyond this many bytes in total are pruned (default 268435456).", valueName: "bytes"))
    var maxBytes: Int64?

    /// The hub's storage in `database`, with the retention `serve` resolved (flag, config.toml, default).
    static func storage(database: BridgeDatabase, settings: ServeSettings, logger: Logger) -> HubStorage {
        HubStorage(
            database: database, retention: JournalRetention(maxAge: settings.journalMaxAgeSeconds, maxBytes: settings.journalMaxBytes),
            logger: logger)
    }
}
