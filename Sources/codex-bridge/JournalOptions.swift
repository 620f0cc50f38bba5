import ArgumentParser
import BridgeServe

/// `serve` options for the event journal's retention.
struct JournalOptions: ParsableArguments {
    @Option(name: .setting(.journalMaxAge), help: .setting(.journalMaxAge))
    var maxAge: DurationArgument?

    @Option(name: .setting(.journalMaxBytes), help: .setting(.journalMaxBytes))
    var maxBytes: Int64?

}
