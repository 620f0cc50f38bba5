import BridgeHub
import BridgeProtocol
import BridgeStore
import Foundation

/// The result of checking a token.
public enum AuthenticationResult: Sendable, Hashable {
    /// The token is valid. `newDeviceToken` is set when a one-time pairing code was just redeemed.
    case accepted(Principal, newDeviceToken: String? = nil)
    /// The token is wrong, used, expired or revoked.
    case rejected
}

/// Checks device tokens and redeems pairing codes; implemented over the device database.
public protocol DeviceAuthenticating: Sendable {
    /// Checks `token` as a device token (never as a pairing code).
    func authenticateDevice(token: String, remoteAddress: String) async -> AuthenticationResult
    /// Redeems `code`, a one-time pairing code, for a new device.
    func redeem(code: String, device: DeviceInfo?, remoteAddress: String) async -> AuthenticationResult
    /// Whether the device was revoked (possibly by another process).
    func isRevoked(deviceId: String) async -> Bool
}

/// Checks the credentials a client presents: the shared secret, then device tokens and pairing codes.
public struct Authenticator: Sendable {
    private let sharedSecret: SharedSecretSource
    private let devices: (any DeviceAuthenticating)?

    /// - Parameters:
    ///   - sharedSecretFile: the file holding the shared secret; re-read when it changes.
    ///   - devices: device tokens and pairing codes, when pairing is available.
    public init(sharedSecretFile: URL, devices: (any DeviceAuthenticating)? = nil) {
        self.sharedSecret = SharedSecretSource(url: sharedSecretFile)
        self.devices = devices
    }

    /// Whether `token` is shaped like a one-time pairing code (the only guessable credential: 50 bits).
    public static func isPairingCode(_ token: String) -> Bool {
        PairingCode.normalize(token) != nil
    }

    /// Checks `token` as a high-entropy credential: the shared secret or a device token (256 random bits
    /// each, so checking them needs no throttling). A pairing code is not redeemed here. Never logs the token.
    public func authenticateCredential(token: String, remoteAddress: String) async -> AuthenticationResult {
        if sharedSecret.matches(token) {
            return .accepted(.sharedSecret)
        }
        guard let devices, !Self.isPairingCode(token) else { return .rejected }
        return await devices.authenticateDevice(token: token, remoteAddress: remoteAddress)
    }

    /// Whether `token` is the shared secret: answered without suspending, so that a hello carrying it is
    /// accepted on the connection's event loop. Never logs the token.
    public func isSharedSecret(_ token: String) -> Bool {
        sharedSecret.matches(token)
    }

    /// Redeems a one-time pairing code for a new device (only from `hello`, which describes the device).
    public func redeem(code: String, device: DeviceInfo?, remoteAddress: String) async -> AuthenticationResult {
        guard let devices, Self.isPairingCode(code) else { return .rejected }
        return await devices.redeem(code: code, device: device, remoteAddress: remoteAddress)
    }
}
