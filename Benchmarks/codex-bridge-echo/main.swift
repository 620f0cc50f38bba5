import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore

/// `codex-bridge-echo [PORT]`: an echo server on the bridge's WebSocket configuration, for the Autobahn
/// fuzzing client (which cannot do the bridge's hello). Same settings as `BridgeServer`: no extensions,
/// UTF-8 validated, frames and messages capped at 1 MiB, pings every 20 s (WSCore's auto-ping here, the
/// bridge's `HeartbeatHandler` there), 3 s close timeout; messages read
/// with `inbound.messages(maxSize:)` as `Connection` does. The upgrade path is Hummingbird's own (the bridge's
/// `BridgeUpgradeChannel` is internal), the frame handling the same WSCore and NIOWebSocket code.
let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 9001 : 9001
let maxMessageBytes = 1 << 20
let echo: WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context> = { inbound, outbound, _ in
    for try await message in inbound.messages(maxSize: maxMessageBytes) {
        switch message {
        case .text(let text): try await outbound.write(.text(text))
        case .binary(let data): try await outbound.write(.binary(data))
        }
    }
}
var logger = Logger(label: "codex-bridge-echo")
logger.logLevel = .warning
let app = Application(
    router: Router(),
    server: .http1WebSocketUpgrade(
        configuration: .init(
            ws: .init(
                maxFrameSize: maxMessageBytes, extensions: [], autoPing: .enabled(timePeriod: .seconds(20)),
                closeTimeout: .seconds(3), validateUTF8: true))
    ) { _, _, _ in .upgrade([:], echo) },
    configuration: .init(address: .hostname("127.0.0.1", port: port)),
    logger: logger
)
try await app.runService()
