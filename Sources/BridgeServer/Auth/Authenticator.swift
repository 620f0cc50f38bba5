import BridgeProtocol
import Foundation

/// Who a connection is authenticated as.
public enum Principal: Sendable, Hashable {
    /// A client that knows the shared secret.
    case sharedSecret
    /// A paired device.
    case device(id: String)

    /// The device id, when a device.
    public var deviceId: String? {
        if case .device(let id) = self { return id }
        return nil
    }
}

/// The result of checking a token.
public enum AuthenticationResult: Sendable, Hashable {
    /// The token is valid. `newDeviceToken` is set when a one-time pairing code was just redeemed.
    case accepted(Principal, newDeviceToken: String? = nil)
    /// The token is wrong, used, expired or revoked.
    case rejected
}

/// Checks device tokens and redeems pairing codes; implemented over the device database.
public protocol DeviceAuthenticating: Sendable {
    /// Checks `token` as a device token, then as a one-time pairing code (which it redeems for a new device).
    func authenticate(token: String, device: DeviceInfo?, remoteAddress: String) async -> AuthenticationResult
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

    /// Checks `token`. Never logs it.
    public func authenticate(token: String, device: DeviceInfo?, remoteAddress: String) async -> AuthenticationResult {
        if sharedSecret.matches(token) {
            return .accepted(.sharedSecret)
        }
        if let devices {
            return await devices.authenticate(token: token, device: device, remoteAddress: remoteAddress)
        }
        return .rejected
    }
}
