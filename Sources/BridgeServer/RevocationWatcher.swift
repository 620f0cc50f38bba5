import BridgeProtocol
import Logging
import ServiceLifecycle

/// Closes the connections of devices revoked since they authenticated, even by another process
/// (`codex-bridge devices revoke` writes the database; this polls it).
///
/// Every `interval` it asks which of the devices with open connections are revoked, and closes their
/// connections with 1008 "device revoked". Other devices are untouched. A `Service`: run it in the same
/// `ServiceGroup` as the ``BridgeServer`` that shares its ``ConnectionRegistry``; it returns on graceful
/// shutdown.
public struct RevocationWatcher: Service, CustomStringConvertible {
    /// The close reason revoked devices get.
    public static let closeReason = "device revoked"

    private let registry: ConnectionRegistry
    private let interval: Duration
    private let logger: Logger
    private let revokedAmong: @Sendable (Set<String>) async -> Set<String>

    /// - Parameters:
    ///   - registry: the connections of the server to watch (the instance passed to ``BridgeServer``).
    ///   - interval: how often to check; 1 s closes a revoked device within 2 s.
    ///   - revokedAmong: of the given device ids, those revoked (one database read).
    public init(
        registry: ConnectionRegistry,
        interval: Duration = .seconds(1),
        logger: Logger,
        revokedAmong: @escaping @Sendable (Set<String>) async -> Set<String>
    ) {
        self.registry = registry
        self.interval = interval
        self.logger = logger
        self.revokedAmong = revokedAmong
    }

    /// Watches through ``RegistryDeviceAuthenticator``: one query per check for every connected device.
    public init(registry: ConnectionRegistry, devices: RegistryDeviceAuthenticator, interval: Duration = .seconds(1), logger: Logger) {
        self.init(registry: registry, interval: interval, logger: logger) { await devices.revokedDeviceIds(among: $0) }
    }

    /// Watches through any ``DeviceAuthenticating``, one `isRevoked` call per connected device.
    public init(registry: ConnectionRegistry, devices: any DeviceAuthenticating, interval: Duration = .seconds(1), logger: Logger) {
        self.init(registry: registry, interval: interval, logger: logger) { ids in
            var revoked = Set<String>()
            for id in ids where await devices.isRevoked(deviceId: id) { revoked.insert(id) }
            return revoked
        }
    }

    public var description: String { "RevocationWatcher" }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                await checkOnce()
            }
        }
    }

    /// Closes the connections of every revoked device that is connected; returns how many were closed.
    @discardableResult
    public func checkOnce() async -> Int {
        let connected = registry.connectedDevices
        guard !connected.isEmpty else { return 0 }
        var closed = 0
        for deviceId in await revokedAmong(connected).sorted() {
            let count = registry.close(deviceId: deviceId, code: BridgeCloseCode.policyViolation, reason: Self.closeReason)
            closed += count
            logger.notice(
                "Closed the connections of a revoked device",
                metadata: ["bridge.device.id": "\(deviceId)", "bridge.connections": "\(count)"])
        }
        return closed
    }
}
