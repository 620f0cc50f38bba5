import BridgeHub
import BridgeProtocol
import BridgeStore
import Foundation

/// What the device layer says about a token (``DeviceAuthenticating``); the ``CredentialCheck`` turns it into a
/// ``CredentialOutcome``.
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
    /// Checks `token` as a device token without suspending, from memory; nil when memory cannot answer (then
    /// ``authenticateDevice(token:remoteAddress:)`` asks the database).
    func cachedDevice(token: String, remoteAddress: String) -> AuthenticationResult?
    /// Redeems `code`, a one-time pairing code, for a new device (or a pairing to confirm).
    func redeem(code: String, device: DeviceInfo?, remoteAddress: String) async -> AuthenticationResult
    /// Waits until the workstation allows or denies a pending pairing, or it times out. Cancelled (the phone went
    /// away), it forgets the pairing and returns a refusal.
    func awaitConfirmation(_ pending: PendingPairing) async -> ConfirmationOutcome
    /// Whether the device was revoked (possibly by another process).
    func isRevoked(deviceId: String) async -> Bool
}

extension DeviceAuthenticating {
    public func cachedDevice(token: String, remoteAddress: String) -> AuthenticationResult? { nil }

    public func awaitConfirmation(_ pending: PendingPairing) async -> ConfirmationOutcome {
        .refused(WireError(code: .unauthorized, message: "this bridge does not confirm pairings"))
    }
}
