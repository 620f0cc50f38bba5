import ArgumentParser
import BridgeHub
import BridgeServer
import BridgeStore
import Foundation
import Logging

/// `serve` options for the event journal's retention.
struct JournalOptions: ParsableArguments {
    @Option(name: .setting(.journalMaxAge), help: .setting(.journalMaxAge))
    var maxAge: DurationArgument?

    @Option(name: .setting(.journalMaxBytes), help: .setting(.journalMaxBytes))
    var maxBytes: Int64?

    /// The hub's storage in `database`, with the retention `serve` resolved (flag, config.toml, default).
    static func storage(database: BridgeDatabase, settings: ServeSettings, logger: Logger) -> HubStorage {
        HubStorage(
            database: database, retention: JournalRetention(maxAge: settings.journalMaxAgeSeconds, maxBytes: settings.journalMaxBytes),
            logger: logger)
    }
}
