import ArgumentParser

/// `codex-bridge`: drive the Codex CLI on this machine from a phone.
@main
struct CodexBridge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codex-bridge",
        abstract: "Drive the Codex CLI on this workstation from a phone, over WebSocket.",
        discussion: "Start with `codex-bridge serve`, then scan the pairing QR with the phone. Protocol: BRIDGE.md.",
        version: BridgeVersion.current,
        subcommands: [ServeCommand.self, TokenCommand.self, PairCommand.self, DevicesCommand.self, DiscoverCommand.self, StatusCommand.self, DoctorCommand.self,
                      ServiceCommand.self, TLSCommand.self, AttachCommand.self]
    )
}

/// The software version.
enum BridgeVersion {
    static let current = "0.1.0"
}
