/// The software version (`--version`, `helloAck.server.version`, the codex client's).
package enum BridgeVersion {
    package static let current = "0.1.0"
}
