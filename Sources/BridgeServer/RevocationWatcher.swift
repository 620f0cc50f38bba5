import BridgeHub
import BridgeProtocol
import BridgeStore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Closes the connections of devices revoked since they authenticated, even by another process
/// (`codex-bridge devices revoke` writes the database; this polls it), and the shared-secret sessions opened
/// before the secret was rotated (`codex-bridge token rotate` rewrites the file; this watches it).
///
/// Whenever `changes` fires (serve: another process wrote the database or the secret file; see ``StateChanges``)
/// it asks which of the devices with open connections are revoked, and closes their connections with 1008
/// "device revoked". Other devices are untouched. A `Service`: run it in the same
/// `ServiceGroup` as the ``BridgeServer`` that shares its ``ConnectionRegistry``; it returns on graceful
/// shutdown.
public struct RevocationWatcher: Service, CustomStringConvertible {
    /// The close reason revoked devices get.
    public static let closeReason = "device revoked"
    /// The close reason shared-secret sessions get after `token rotate`.
    public static let rotatedReason = "token rotated"

    private let registry: ConnectionRegistry
    private let changes: StateChanges
    private let logger: Logger
    private let revokedAmong: @Sendable (Set<String>) async -> Set<String>
    private let sharedSecret: SharedSecretWatch?
    /// Runs first in every round: keeps the credential check's device table fresh.
    private let refresh: (@Sendable () async -> Void)?

    /// - Parameters:
    ///   - registry: the connections of the server to watch (the instance passed to ``BridgeServer``).
    ///   - changes: when to look again (by default every second, which closes a revoked device within 2 s).
    ///   - revokedAmong: of the given device ids, those revoked (one database read).
    public init(
        registry: ConnectionRegistry,
        changes: StateChanges = .every(.seconds(1)),
        logger: Logger,
        sharedSecretFile: URL? = nil,
        refresh: (@Sendable () async -> Void)? = nil,
        revokedAmong: @escaping @Sendable (Set<String>) async -> Set<String>
    ) {
        self.sharedSecret = sharedSecretFile.map { SharedSecretWatch(url: $0) }
        self.refresh = refresh
        self.registry = registry
        self.changes = changes
        self.logger = logger
        self.revokedAmong = revokedAmong
    }

    /// Watches through ``RegistryDeviceAuthenticator``: one query per round for every connected device, and one
    /// that reloads the device table its credential check reads (so a revocation or a scope change by another
    /// process counts for new handshakes within the table's freshness bound, 1.5 s).
    public init(
        registry: ConnectionRegistry, devices: RegistryDeviceAuthenticator, changes: StateChanges = .every(.seconds(1)), logger: Logger,
        sharedSecretFile: URL? = nil
    ) {
        self.init(
            registry: registry, changes: changes, logger: logger, sharedSecretFile: sharedSecretFile,
            refresh: { await devices.reloadTokens() },
            revokedAmong: { await devices.revokedDeviceIds(among: $0) })
    }

    /// Watches through any ``DeviceAuthenticating``, one `isRevoked` call per connected device.
    public init(
        registry: ConnectionRegistry, devices: any DeviceAuthenticating, changes: StateChanges = .every(.seconds(1)), logger: Logger
    ) {
        self.init(registry: registry, changes: changes, logger: logger) { ids in
            var revoked = Set<String>()
            for id in ids where await devices.isRevoked(deviceId: id) { revoked.insert(id) }
            return revoked
        }
    }

    public var description: String { "RevocationWatcher" }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var seen = changes.generation
            await refresh?()
            while !Task.isCancelled {
                seen = await changes.wait(after: seen)
                if Task.isCancelled { return }
                await refresh?()
                await checkOnce()
                checkSharedSecret()
            }
        }
    }

    /// Closes the shared-secret sessions opened before the secret changed; returns how many were closed.
    @discardableResult
    public func checkSharedSecret() -> Int {
        guard let sharedSecret, let rotatedAt = sharedSecret.changedSince() else { return 0 }
        let count = registry.closeSharedSecretSessions(
            authenticatedBefore: rotatedAt, code: BridgeCloseCode.policyViolation, reason: Self.rotatedReason)
        logger.notice(
            "The shared secret was rotated: closed the sessions that used the old one", metadata: ["bridge.connections": "\(count)"])
        return count
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

/// Notices when the shared secret's value changes.
final class SharedSecretWatch: Sendable {
    private let source: SharedSecretSource
    private let url: URL
    private let last: Mutex<String?>

    init(url: URL) {
        self.url = url
        self.source = SharedSecretSource(url: url)
        self.last = Mutex(source.current())
    }

    /// When the secret last changed (the file's modification time) if its value differs from the last call's;
    /// nil when it did not change.
    func changedSince() -> Date? {
        let now = source.current()
        let changed = last.withLock { last -> Bool in
            defer { last = now }
            return now != nil && last != nil && !ConstantTime.equals(now!, last!)
        }
        guard changed else { return nil }
        let modified = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? Date()
        return modified
    }
}
