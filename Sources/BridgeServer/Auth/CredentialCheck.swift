import BridgeHub
import BridgeProtocol
import BridgeStore
import Foundation
import Logging

/// A credential as a client presents it.
public enum Credential: Sendable, Hashable {
    /// An `Authorization` header's value, or nil when the request has none: on a WebSocket upgrade or an HTTP
    /// route. `Bearer` and the shared secret or a device token; never a pairing code.
    case authorization(String?)
    /// A `hello`'s token: the shared secret, a device token, or a one-time pairing code redeemed for the device
    /// the hello describes.
    case hello(token: String, device: DeviceInfo?)

    /// Whether a pairing code may be redeemed here.
    var redeemsPairingCodes: Bool {
        if case .hello = self { true } else { false }
    }

    /// The token presented, nil when there is none or the header is not `Bearer <token>`.
    var token: String? {
        switch self {
        case .authorization(let header): header.flatMap(Self.bearerToken)
        case .hello(let token, _): token
        }
    }

    /// The token of an `Authorization: Bearer <token>` value.
    static func bearerToken(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}

/// What a valid credential grants.
public struct Grant: Sendable, Hashable {
    public var principal: Principal
    /// The credential's scopes; nil: the principal's default (every scope for the shared secret).
    public var scopes: Scopes?
    /// Set once, when a one-time pairing code was just redeemed: the new device's token (for its `helloAck`).
    public var newDeviceToken: String?

    public init(_ principal: Principal, scopes: Scopes? = nil, newDeviceToken: String? = nil) {
        self.principal = principal
        self.scopes = scopes
        self.newDeviceToken = newDeviceToken
    }

    /// The scopes in force: the credential's, else every scope for the shared secret and the standard ones for a
    /// device (as a session decides).
    public var effectiveScopes: Scopes {
        scopes ?? (principal == .sharedSecret ? .all : .standard)
    }
}

/// The answer of the ``CredentialCheck``.
public enum CredentialOutcome: Sendable, Hashable {
    case granted(Grant)
    /// A pairing code was spent, and the pairing waits for the workstation (``CredentialCheck/awaitConfirmation(_:)``).
    case pending(PendingPairing)
    /// Wrong, used, expired or revoked; `rateLimited`: the address had used up its failures before this one.
    case refused(rateLimited: Bool)
}

/// The one check of every credential: the WebSocket upgrade's `Authorization` header, the hello's token and the
/// HTTP routes' bearer, with its own failure accounting per address (``AuthRateLimiter``).
///
/// The shared secret (its file re-read when it changes) and device tokens (256 random bits each) are checked
/// first and never throttled: a valid one passes even from a limited address (clients behind one NAT share it
/// with whoever fails). A failure counts; a limited address is told `rateLimited` and learns nothing more. A
/// pairing code, the only guessable credential (50 bits), is redeemed only from a hello and only under the limit
/// (the attempt counts until it proves valid, so concurrent guesses cannot all pass the check). Secrets are
/// compared in constant time (a device token through the SHA-256 of it) and never logged.
public struct CredentialCheck: Sendable {
    private let sharedSecret: SharedSecretSource
    private let devices: (any DeviceAuthenticating)?
    /// Failed authentications per address (shared with ``MetricsRoute``).
    public let rateLimiter: AuthRateLimiter
    private let logger: Logger

    /// - Parameters:
    ///   - sharedSecretFile: the file holding the shared secret; re-read when it changes.
    ///   - devices: device tokens and pairing codes, when pairing is available.
    ///   - rateLimiter: failed authentications per address.
    ///   - logger: receives the address and the kind of each failure, never a credential.
    public init(
        sharedSecretFile: URL, devices: (any DeviceAuthenticating)? = nil, rateLimiter: AuthRateLimiter, logger: Logger
    ) {
        self.sharedSecret = SharedSecretSource(url: sharedSecretFile)
        self.devices = devices
        self.rateLimiter = rateLimiter
        self.logger = logger
    }

    /// Whether `token` is shaped like a one-time pairing code.
    public static func isPairingCode(_ token: String) -> Bool {
        PairingCode.normalize(token) != nil
    }

    /// The check's answer when it needs no suspension (the shared secret, a device token the in-memory table
    /// knows, every failure but a pairing code's); nil when it must ask the database: then call
    /// ``check(_:remoteAddress:)``.
    public func checkNow(_ credential: Credential, remoteAddress: String) -> CredentialOutcome? {
        guard let token = credential.token else { return refuse(remoteAddress, credential) }
        if sharedSecret.matches(token) { return .granted(Grant(.sharedSecret)) }
        if Self.isPairingCode(token) {
            return credential.redeemsPairingCodes && devices != nil ? nil : refuse(remoteAddress, credential)
        }
        guard let devices else { return refuse(remoteAddress, credential) }
        switch devices.cachedDevice(token: token, remoteAddress: remoteAddress) {
        case nil: return nil
        case .some(let result): return outcome(result, remoteAddress, credential)
        }
    }

    /// Checks `credential` presented from `remoteAddress`: a grant, a pairing that waits for the workstation, or a
    /// refusal (counted).
    public func check(_ credential: Credential, remoteAddress: String) async -> CredentialOutcome {
        if let answer = checkNow(credential, remoteAddress: remoteAddress) { return answer }
        guard let token = credential.token, let devices else { return refuse(remoteAddress, credential) }
        guard Self.isPairingCode(token) else {
            return outcome(await devices.authenticateDevice(token: token, remoteAddress: remoteAddress), remoteAddress, credential)
        }
        guard rateLimiter.beginAttempt(remoteAddress) else {
            logFailure(remoteAddress, credential, rateLimited: true)
            return .refused(rateLimited: true)
        }
        let result = await devices.redeem(code: token, device: credential.device, remoteAddress: remoteAddress)
        switch result {
        case .accepted, .pending:
            // A valid code is not a failure, whether it pairs at once or waits for the workstation.
            rateLimiter.succeeded(remoteAddress)
        case .rejected:
            // The attempt already counts.
            logFailure(remoteAddress, credential, rateLimited: false)
            return .refused(rateLimited: false)
        }
        return outcome(result, remoteAddress, credential)
    }

    /// Waits for the workstation's decision on a pending pairing (see ``DeviceAuthenticating/awaitConfirmation(_:)``):
    /// the new device's grant, or the error its failed `helloAck` carries.
    public func awaitConfirmation(_ pending: PendingPairing) async -> Result<Grant, WireError> {
        guard let devices else { return .failure(WireError(code: .unauthorized, message: "pairing is not available")) }
        switch await devices.awaitConfirmation(pending) {
        case .allowed(.accepted(let principal, let newDeviceToken, let scopes)):
            return .success(Grant(principal, scopes: scopes, newDeviceToken: newDeviceToken))
        case .allowed:
            return .failure(WireError(code: .unauthorized, message: "the pairing failed on the workstation; pair again"))
        case .refused(let error):
            return .failure(error)
        }
    }

    private func outcome(_ result: AuthenticationResult, _ remoteAddress: String, _ credential: Credential) -> CredentialOutcome {
        switch result {
        case .accepted(let principal, let newDeviceToken, let scopes):
            .granted(Grant(principal, scopes: scopes, newDeviceToken: newDeviceToken))
        case .pending(let pending): .pending(pending)
        case .rejected: refuse(remoteAddress, credential)
        }
    }

    /// Counts a failure from `remoteAddress`; rate limited when the address had used up its failures before.
    private func refuse(_ remoteAddress: String, _ credential: Credential) -> CredentialOutcome {
        let limited = rateLimiter.isLimited(remoteAddress)
        rateLimiter.recordFailure(remoteAddress)
        logFailure(remoteAddress, credential, rateLimited: limited)
        return .refused(rateLimited: limited)
    }

    private func logFailure(_ remoteAddress: String, _ credential: Credential, rateLimited: Bool) {
        let via = credential.redeemsPairingCodes ? "hello" : "authorization"
        logger.notice(
            "Authentication failed",
            metadata: ["bridge.remote": "\(remoteAddress)", "bridge.auth.via": "\(via)", "bridge.auth.rate_limited": "\(rateLimited)"])
    }
}

extension Credential {
    fileprivate var device: DeviceInfo? {
        if case .hello(_, let device) = self { device } else { nil }
    }
}
