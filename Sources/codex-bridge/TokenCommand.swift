import ArgumentParser
import BridgeOps
import BridgeStore

/// `codex-bridge token show|rotate`: the shared secret for pre-shared-token clients.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Show or rotate the shared secret.",
        subcommands: [Show.self, Rotate.self]
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the shared secret (created on first use).")
        @OptionGroup var state: StateOptions

        func run() throws {
            let paths = state.paths
            do {
                // Reading needs no write access: only a missing secret makes the directory and the file.
                if let secret = try SecretFile.read(paths.tokenFile), !secret.isEmpty {
                    Terminal.say(secret)
                    return
                }
                try paths.prepare()
                Terminal.say(try SharedSecret(paths: paths).loadOrCreate())
            } catch {
                throw CommandFailure("\(error)")
            }
        }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the shared secret. A running server rejects the old one from its next handshake on."
        )
        @OptionGroup var state: StateOptions

        func run() throws {
            let paths = state.paths
            try paths.prepare()
            Terminal.say(try SharedSecret(paths: paths).rotate())
        }
    }
}
