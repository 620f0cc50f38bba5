import ArgumentParser
import BridgeServe

/// A duration flag (`--shutdown-grace 30s`); ``DurationArgument/init(argument:)`` is the grammar.
extension DurationArgument: ExpressibleByArgument {}
