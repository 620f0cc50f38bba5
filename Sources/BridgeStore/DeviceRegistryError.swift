/// Why a ``DeviceRegistry`` operation failed. Messages never contain a code or a token.
public struct DeviceRegistryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Sendable, Hashable {
        /// No such pairing code (or not shaped like one).
        case unknownCode
        /// The code was already redeemed.
        case codeAlreadyUsed
        /// The code's TTL has passed.
        case codeExpired
        /// Too many wrong codes were tried while this one was live; it no longer pairs.
        case codeBurnt
        /// No device with that id.
        case deviceNotFound
        /// The device is already revoked.
        case alreadyRevoked
        /// A device must keep at least one scope.
        case noScopes
        /// A device name must be 1 to 64 characters (trimmed) without control characters.
        case badName
        /// A device asked for scopes it holds already.
        case alreadyHeld
        /// No request for scopes waits under that device id.
        case noScopeRequest
        /// No pairing waits for confirmation under that id (never, or it was allowed, denied, abandoned or expired).
        case noPairingRequest
        /// The check code given to allow a pairing is not the one its phone shows (or none was given).
        case checkCodeMismatch
    }

    /// The kind of failure.
    public let code: Code
    /// A message for a person.
    public let message: String

    public var description: String { message }

    /// The pairing code does not exist.
    public static let unknownCode = DeviceRegistryError(code: .unknownCode, message: "unknown pairing code")
    /// The pairing code was already used.
    public static let codeAlreadyUsed = DeviceRegistryError(
        code: .codeAlreadyUsed, message: "pairing code already used (codes are single use: run `codex-bridge pair` again)")
    /// The pairing code expired.
    public static let codeExpired = DeviceRegistryError(
        code: .codeExpired, message: "pairing code expired (run `codex-bridge pair` again)")

    /// The pairing code was burnt by too many failed attempts.
    public static let codeBurnt = DeviceRegistryError(
        code: .codeBurnt, message: "pairing code withdrawn after too many wrong codes were tried (run `codex-bridge pair` again)")

    /// No device has this id.
    public static func deviceNotFound(_ id: String) -> DeviceRegistryError {
        DeviceRegistryError(code: .deviceNotFound, message: "no device with id \(id) (see `codex-bridge devices list`)")
    }

    /// The device was already revoked.
    public static func alreadyRevoked(_ id: String) -> DeviceRegistryError {
        DeviceRegistryError(code: .alreadyRevoked, message: "device \(id) is already revoked")
    }

    /// An empty scope list.
    public static let noScopes = DeviceRegistryError(
        code: .noScopes, message: "a device needs at least one scope (to take everything away, revoke it: `codex-bridge devices revoke ID`)"
    )

    /// A name that is empty, longer than 64 characters or holds control characters.
    public static let badName = DeviceRegistryError(
        code: .badName, message: "a device name must be 1 to 64 characters without control characters")

    /// Every scope asked for is held already.
    public static let alreadyHeld = DeviceRegistryError(code: .alreadyHeld, message: "this device holds every scope it asks for already")

    /// No request for scopes waits for this device.
    public static func noScopeRequest(_ id: String) -> DeviceRegistryError {
        DeviceRegistryError(
            code: .noScopeRequest,
            message:
                "device \(id) has no request for scopes waiting (it may have been decided or expired; see `codex-bridge devices pending`)")
    }

    /// No pairing waits for confirmation under this id.
    public static func noPairingRequest(_ id: String) -> DeviceRegistryError {
        DeviceRegistryError(
            code: .noPairingRequest,
            message:
                "no pairing waits for confirmation with id \(id) (it may have been allowed, denied, abandoned or expired; see `codex-bridge devices pending`)"
        )
    }

    /// The check code given is not the waiting pairing's: the phone in the person's hand is not that device.
    public static func checkCodeMismatch(_ id: String, of what: String = "pairing") -> DeviceRegistryError {
        DeviceRegistryError(
            code: .checkCodeMismatch,
            message:
                "that is not the check code of \(what) \(id): the phone that shows it is another one. Nothing was allowed; compare again (`codex-bridge devices pending`) or refuse it (`codex-bridge devices deny \(id)`)"
        )
    }

    /// True for the failures a server answers with `unauthorized` (unknown, used, expired code).
    public var isUnauthorized: Bool {
        switch code {
        case .unknownCode, .codeAlreadyUsed, .codeExpired, .codeBurnt: true
        case .deviceNotFound, .alreadyRevoked, .noScopes, .noPairingRequest, .checkCodeMismatch, .badName, .alreadyHeld,
            .noScopeRequest:
            false
        }
    }
}
