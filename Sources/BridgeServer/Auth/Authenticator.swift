import BridgeHub
import BridgeProtocol
import BridgeStore
import Foundation

/// The result of checking a token.
public enum AuthenticationResult: Sendable, Hashable {
    /// The token is valid. `newDeviceToken` is set when a one-time pairing code was just redeemed; `scopes` are
    /// the device's (nil: every scope for the shared secret, the standard ones for a device).
    case accepted(Principal, newDeviceToken: String? = nil, scopes: Scopes? = nil)
    /// A pairing code was spent, and the pairing waits for the workstation's confirmation
    /// (`serve --confirm-pairing`): see ``DeviceAuthenticating/awaitConfirmation(_:)``.
    case pending(PendingPairing)
    /// The token is wrong, used, expired or revoked.
    case rejected
}

/// A pairing waiting for the workstation: what the phone is told (`pairingPending`).
public struct PendingPairing: Sendable, Hashable {
    public var deviceId: String
    /// Four digits, shown on the phone and on the workstation.
    public var check: String
    public var expiresAt: Date
    public init(deviceId: String, check: String, expiresAt: Date) {
        self.deviceId = deviceId
        self.check = check
        self.expiresAt = expiresAt
    }
}

/// How a pairing that waited for the workstation ended.
public enum ConfirmationOutcome: Sendable, Hashable {
    /// Allowed: the device is registered (`.accepted` with its new token).
    case allowed(AuthenticationResult)
    /// Denied, not confirmed in time, or failed: the handshake fails with this error (close 1008).
    case refused(WireError)
}

/// Checks device tokens and redeems pairing codes; implemented over the device database.
public protocol DeviceAuthenticating: Sendable {
    /// Checks `token` as a device token (never as a pairing code).
    func authenticateDevice(token: String, remoteAddress: String) async -> AuthenticationResult
    /// Redeems `code`, a one-time pairing code, for a new device (or a pairing to confirm).
    func redeem(code: String, device: DeviceInfo?, remoteAddress: String) async -> AuthenticationResult
    /// Waits until the workstation allows or denies a pending pairing, or it times out. Cancelled (the phone went
    /// away), it forgets the pairing and returns a refusal.
    func awaitConfirmation(_ pending: PendingPairing) async -> ConfirmationOutcome
    /// Whether the device was revoked (possibly by another process).
    func isRevoked(deviceId: String) async -> Bool
}

extension DeviceAuthenticating {
    public func awaitConfirmation(_ pending: PendingPairing) async -> ConfirmationOutcome {
        .refused(WireError(code: .unauthorized, message: "this bridge does not confirm pairings"))
    }
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

    /// Waits for the workstation's decision on a pending pairing (see ``DeviceAuthenticating/awaitConfirmation(_:)``).
    public func awaitConfirmation(_ pending: PendingPairing) async -> ConfirmationOutcome {
        guard let devices else { return .refused(WireError(code: .unauthorized, message: "pairing is not available")) }
        return await devices.awaitConfirmation(pending)
    }
}
