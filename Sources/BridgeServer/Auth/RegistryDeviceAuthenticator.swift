import BridgeHub
import BridgeProtocol
import BridgeStore
import Logging

/// Device tokens and one-time pairing codes, checked against the ``DeviceRegistry`` in the bridge database.
///
/// Device tokens are looked up; pairing codes are redeemed for a new device. Every failure, a database error included, is `.rejected`: a client
/// never learns more than `unauthorized`. Neither codes nor tokens are ever logged, only device ids and
/// the kind of failure.
public struct RegistryDeviceAuthenticator: DeviceAuthenticating {
    private let registry: DeviceRegistry
    private let logger: Logger

    /// - Parameters:
    ///   - registry: the devices and pairing codes.
    ///   - logger: receives device ids and failure kinds, never a secret.
    public init(registry: DeviceRegistry, logger: Logger) {
        self.registry = registry
        self.logger = logger
    }

    public func authenticateDevice(token: String, remoteAddress: String) async -> AuthenticationResult {
        do {
            guard let record = try await registry.authenticate(deviceToken: token, address: remoteAddress) else {
                logger.debug("Unknown or revoked device token", metadata: ["bridge.remote": "\(remoteAddress)"])
                return .rejected
            }
            return .accepted(.device(id: record.id))
        } catch {
            logger.error(
                "Device token check failed: database error",
                metadata: ["bridge.remote": "\(remoteAddress)", "error.type": "\(type(of: error))"])
            return .rejected
        }
    }

    public func isRevoked(deviceId: String) async -> Bool {
        await revokedDeviceIds(among: [deviceId]).contains(deviceId)
    }

    /// Of `ids`, those revoked or deleted; one database read. On a database error none is reported revoked:
    /// live connections stay up through a transient failure, while new authentications fail closed.
    public func revokedDeviceIds(among ids: Set<String>) async -> Set<String> {
        do {
            return try await registry.revokedDeviceIds(among: ids)
        } catch {
            logger.warning("Revocation check failed: database error", metadata: ["error.type": "\(type(of: error))"])
            return []
        }
    }

    public func redeem(code: String, device: DeviceInfo?, remoteAddress: String) async -> AuthenticationResult {
        do {
            let paired = try await registry.redeem(code: code, device: device ?? DeviceInfo(), address: remoteAddress)
            return .accepted(.device(id: paired.deviceId), newDeviceToken: paired.deviceToken)
        } catch let error as DeviceRegistryError {
            // The message names the kind (unknown, used, expired), never the code.
            logger.notice(
                "Pairing code rejected",
                metadata: ["bridge.remote": "\(remoteAddress)", "bridge.pairing.failure": "\(error.code)"])
            return .rejected
        } catch {
            logger.error(
                "Pairing failed: database error",
                metadata: ["bridge.remote": "\(remoteAddress)", "error.type": "\(type(of: error))"])
            return .rejected
        }
    }
}
