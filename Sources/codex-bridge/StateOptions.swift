import ArgumentParser
import BridgeStore

/// `--state-dir`, shared by every command.
struct StateOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Directory for config and state (default: $CODEX_BRIDGE_HOME, else XDG).", valueName: "dir"))
    var stateDir: String?

    var paths: StatePaths { StatePaths.resolve(override: stateDir) }
}
