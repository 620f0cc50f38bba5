import ArgumentParser
import BridgeOps
import BridgeServe
import Foundation

/// `codex-bridge`: drive the Codex CLI on this machine from a phone.
@main
struct CodexBridge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codex-bridge",
        abstract: "Drive the Codex CLI on this workstation from a phone, over WebSocket.",
        discussion: "Start with `codex-bridge serve`, then scan the pairing QR with the phone. Protocol: BRIDGE.md.",
        version: BridgeVersion.current,
        subcommands: [
            ServeCommand.self, TokenCommand.self, PairCommand.self, DevicesCommand.self, AuditCommand.self, DiscoverCommand.self,
            StatusCommand.self,
            DoctorCommand.self,
            ServiceCommand.self, TLSCommand.self, AttachCommand.self, MachinesCommand.self, CompletionsCommand.self,
        ]
    )

    /// What a failure prints: `error: …` (ArgumentParser's own text for usage errors and help). A command's
    /// failure is one line that often carries what another bridge or a phone said: it is a ``Terminal/field(_:)``.
    static func errorText(for error: any Error) -> String {
        if let failure = error as? CommandFailure { return "error: " + Terminal.field(failure.description) }
        let message = fullMessage(for: error)
        return message.hasPrefix("Error: ") ? "error: " + message.dropFirst("Error: ".count) : message
    }

    /// Runs the command; every error is one line `error: …` on stderr (usage errors add the usage after it and
    /// exit 2), in one style whatever the command.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let message = errorText(for: error)
            if code == .success {
                if !message.isEmpty { Terminal.say(message) }
            } else if !message.isEmpty {
                Terminal.warn(message)
            }
            // Usage errors exit 2 (as most Unix tools do), not ArgumentParser's 64.
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}
