import BridgeServer
import BridgeStore
import Logging
import ServiceLifecycle
import UnixSignals

/// What `serve` runs, as ``buildBridge(_:paths:logger:metrics:)`` made it: its services in start order (they
/// stop in reverse), and the address the server bound once it listens.
package struct ServeBridge: Sendable {
    /// The services, in start order.
    package let services: [ServiceGroupConfiguration.ServiceConfiguration]
    /// Yields the bound address once (port 0 resolved), then ends.
    package let listening: AsyncStream<BridgeServer.Listening>
    package let paths: StatePaths
    package let logger: Logger

    /// Runs every service until one of `gracefulShutdownSignals` arrives or the task is cancelled, then stops
    /// them in reverse order and removes `server.json`.
    package func run(gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint]) async throws {
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: gracefulShutdownSignals, logger: logger))
        defer { ServerRecord.remove(paths: paths) }
        try await group.run()
        logger.info("Stopped")
    }

    /// The address the server bound (nil if it stopped before listening).
    package func listeningAddress() async -> BridgeServer.Listening? {
        for await address in listening { return address }
        return nil
    }
}
