import BridgeProtocol
import Logging
import ServiceLifecycle

/// On graceful shutdown, closes every client with 1001 ("going away") and waits for them to go (bounded),
/// before the listener itself stops.
struct ShutdownCoordinator: Service, CustomStringConvertible {
    var description: String { "ShutdownCoordinator" }
    let registry: ConnectionRegistry
    let timeout: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        let open = registry.count
        logger.info("Shutting down: closing clients", metadata: ["bridge.connections": "\(open)"])
        registry.closeAll(code: BridgeCloseCode.goingAway, reason: "server shutting down")
        let deadline = ContinuousClock.now + timeout
        while registry.count > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
