import Foundation

// Trust: devices, their scopes, pairing confirmation and the audit log (BRIDGE.md, "Devices and scopes").

/// `listDevices {}` (admin) → `devices {devices}`.
public struct ListDevices: RequestPayload {
    public init() {}
}

/// `setDeviceScopes {deviceId, scopes}` (admin) → `device {device}`: replaces a device's scopes; its open
/// connections follow within 2 s.
public struct SetDeviceScopes: RequestPayload {
    public var deviceId: String
    /// Scope names (`observe`, `operate`, `approve`, `publish`, `run`, `admin`); at least one.
    public var scopes: [String]
    public init(deviceId: String, scopes: [String]) {
        self.deviceId = deviceId
        self.scopes = scopes
    }
}

extension SetDeviceScopes {
    public func auditDetail(answer: BridgeResponse?) -> String? { "\(deviceId): \(scopes.joined(separator: ","))" }
}

/// `renameDevice {deviceId, name}` (admin) → `device {device}`: gives a paired device another name (1 to 64
/// characters once trimmed, no control characters); a revoked or unknown device cannot be renamed.
public struct RenameDevice: RequestPayload {
    public var deviceId: String
    public var name: String
    public init(deviceId: String, name: String) {
        self.deviceId = deviceId
        self.name = name
    }
}

extension RenameDevice {
    public func auditDetail(answer: BridgeResponse?) -> String? { "\(deviceId): \(name.prefix(64))" }
}

/// `requestScopes {scopes}` (observe) → `scopeRequest {deviceId, scopes, check, expiresAt}`: a paired device asks
/// the workstation for scopes it lacks; `codex-bridge devices allow ID --check CHECK` grants them.
public struct RequestScopes: RequestPayload {
    /// Scope names, as in `setDeviceScopes`.
    public var scopes: [String]
    public init(scopes: [String]) { self.scopes = scopes }
}

extension RequestScopes {
    /// The scopes and check code issued; the scopes asked for when it failed.
    public func auditDetail(answer: BridgeResponse?) -> String? {
        if case .scopeRequest(let issued) = answer { return "scopes \(issued.scopes), check \(issued.check)" }
        return "scopes \(scopes.prefix(6).joined(separator: ","))"
    }
}

/// `scopeRequest {deviceId, scopes, check, expiresAt}`: the answer to `requestScopes`: what waits for the
/// workstation (the scopes the device lacked), the check code to show, and until when (Unix seconds).
public struct ScopeRequestIssued: Codable, Sendable, Hashable {
    public var deviceId: String
    public var scopes: Scopes
    public var check: String
    public var expiresAt: Double
    public init(deviceId: String, scopes: Scopes, check: String, expiresAt: Double) {
        self.deviceId = deviceId
        self.scopes = scopes
        self.check = check
        self.expiresAt = expiresAt
    }
}

/// `revokeDevice {deviceId}` (admin) → `device {device}`: the device's token stops working and its
/// connections close within 2 s.
public struct RevokeDevice: RequestPayload {
    public var deviceId: String
    public init(deviceId: String) { self.deviceId = deviceId }
}

extension RevokeDevice {
    public func auditDetail(answer: BridgeResponse?) -> String? { deviceId }
}

/// `pairDevice {scopes?, ttl?}` (admin) → `pairingCode {code, expiresAt, scopes}`: a one-time pairing code for
/// another device, as `codex-bridge pair` mints it.
public struct PairDevice: RequestPayload {
    /// The new device's scopes (default `observe,operate,approve`).
    public var scopes: [String]?
    /// Seconds the code stays valid, 60 to 86400 (default 600).
    public var ttl: Double?
    public init(scopes: [String]? = nil, ttl: Double? = nil) {
        self.scopes = scopes
        self.ttl = ttl
    }
}

extension PairDevice {
    public func auditDetail(answer: BridgeResponse?) -> String? {
        "scopes \(scopes?.joined(separator: ",") ?? Scopes.standard.description)"
    }
}

/// `listAudit {deviceId?, since?, limit?}` (admin) → `audit {entries}`: the newest entries first.
public struct ListAudit: RequestPayload {
    /// Only this device's actions.
    public var deviceId: String?
    /// Only entries at or after this time (Unix seconds).
    public var since: Double?
    /// At most this many, 1 to 1000 (default 100).
    public var limit: Int?
    public init(deviceId: String? = nil, since: Double? = nil, limit: Int? = nil) {
        self.deviceId = deviceId
        self.since = since
        self.limit = limit
    }
}

/// One paired device as an admin sees it (never its token or the token's hash).
public struct DeviceSummary: Codable, Sendable, Hashable {
    public var id: String
    public var name: String
    public var platform: String?
    /// Unix seconds.
    public var pairedAt: Double
    public var lastSeenAt: Double?
    public var lastAddress: String?
    public var scopes: Scopes
    public var revoked: Bool
    /// Whether it has an open connection to this bridge now.
    public var connected: Bool?
    /// Whether this is the device that asked.
    public var current: Bool?
    /// Its latest audited actions, newest first (in `devices` answers).
    public var recentActions: [AuditEntry]?

    public init(
        id: String, name: String, platform: String? = nil, pairedAt: Double, lastSeenAt: Double? = nil, lastAddress: String? = nil,
        scopes: Scopes, revoked: Bool, connected: Bool? = nil, current: Bool? = nil, recentActions: [AuditEntry]? = nil
    ) {
        self.id = id
        self.name = name
        self.platform = platform
        self.pairedAt = pairedAt
        self.lastSeenAt = lastSeenAt
        self.lastAddress = lastAddress
        self.scopes = scopes
        self.revoked = revoked
        self.connected = connected
        self.current = current
        self.recentActions = recentActions
    }
}

/// `devices {devices}`: the answer to `listDevices`, oldest pairing first.
public struct DeviceList: Codable, Sendable, Hashable {
    public var devices: [DeviceSummary]
    public init(devices: [DeviceSummary]) { self.devices = devices }
}

/// `device {device}`: the answer to `setDeviceScopes` and `revokeDevice`: the device as it is now.
public struct DeviceChanged: Codable, Sendable, Hashable {
    public var device: DeviceSummary
    public init(device: DeviceSummary) { self.device = device }
}

/// `pairingCode {code, expiresAt, scopes}`: the answer to `pairDevice`. The web pairing URL is the bridge's own
/// origin with `#pair=v1&code=CODE`.
public struct PairingCodeIssued: Codable, Sendable, Hashable {
    public var code: String
    /// Unix seconds.
    public var expiresAt: Double
    public var scopes: Scopes
    public init(code: String, expiresAt: Double, scopes: Scopes) {
        self.code = code
        self.expiresAt = expiresAt
        self.scopes = scopes
    }
}

/// Who did something, in an audit entry.
public enum AuditActor: String, Codable, Sendable, Hashable, CaseIterable {
    /// A paired device (`deviceId`, `deviceName`).
    case device
    /// A client holding the shared secret.
    case sharedSecret
    /// The Codex TUI on a shared app-server (`serve --shared`).
    case desk
    /// A notification's button (`POST /push/action`); `deviceId` is the device it was sent to, none for ntfy.
    case notification
    /// A command on the workstation (`codex-bridge devices …`, `pair`).
    case workstation
    /// The bridge itself (a pairing confirmation that timed out).
    case bridge
}

/// One audited action: who, from where, what, on which thread, and how it ended.
public struct AuditEntry: Codable, Sendable, Hashable {
    /// Increasing id (`audit` lists newest first).
    public var id: Int64?
    /// Unix seconds.
    public var at: Double
    public var actor: AuditActor
    public var deviceId: String?
    public var deviceName: String?
    /// The client's address, when it came over the network.
    public var address: String?
    /// The request kind (`startThread`, `approve`, …) or the event (`pair`, `pairingAllowed`, `devicesScope`, …).
    public var kind: String
    public var threadId: String?
    /// `ok`, or the error code it was refused with (`forbidden`, `not_found`, …).
    public var outcome: String
    /// A short description (the decision of an approval, the scopes set, the device paired).
    public var detail: String?
    /// How many alike refusals (same device, kind and outcome) this entry stands for, from `at` to `lastAt`; 1 for
    /// every other entry. Nil from a bridge that does not count.
    public var count: Int?
    /// Unix seconds of the last refusal counted in this entry (when `count` is more than 1).
    public var lastAt: Double?
    /// For a request a linked home bridge made: who it made it for, as that bridge reported it.
    public var onBehalfOf: OnBehalfOf?

    public init(
        id: Int64? = nil, at: Double, actor: AuditActor, deviceId: String? = nil, deviceName: String? = nil, address: String? = nil,
        kind: String, threadId: String? = nil, outcome: String, detail: String? = nil, count: Int? = nil, lastAt: Double? = nil,
        onBehalfOf: OnBehalfOf? = nil
    ) {
        self.onBehalfOf = onBehalfOf
        self.count = count
        self.lastAt = lastAt
        self.id = id
        self.at = at
        self.actor = actor
        self.deviceId = deviceId
        self.deviceName = deviceName
        self.address = address
        self.kind = kind
        self.threadId = threadId
        self.outcome = outcome
        self.detail = detail
    }
}

/// `audit {entries}`: the answer to `listAudit`.
public struct AuditList: Codable, Sendable, Hashable {
    public var entries: [AuditEntry]
    public init(entries: [AuditEntry]) { self.entries = entries }
}

/// `pairingPending {deviceId, check, expiresAt}`: sent instead of `helloAck` when the bridge runs with
/// `serve --confirm-pairing`: the pairing waits until the workstation allows it (`codex-bridge devices allow
/// ID`); then the `helloAck` with the device token follows on the same socket. Show `check` to the user: the
/// workstation shows the same four digits.
public struct PairingPending: Codable, Sendable, Hashable {
    public var deviceId: String
    /// Four digits.
    public var check: String
    /// Unix seconds: the pairing is dropped (close 1008) if nobody allows it by then.
    public var expiresAt: Double
    public init(deviceId: String, check: String, expiresAt: Double) {
        self.deviceId = deviceId
        self.check = check
        self.expiresAt = expiresAt
    }
}

/// `scopesChanged {scopes}`: the device's scopes were changed on the workstation (or by an admin device); from
/// now on the connection has these.
public struct ScopesChanged: Codable, Sendable, Hashable {
    public var scopes: Scopes
    public init(scopes: Scopes) { self.scopes = scopes }
}

/// `scopeRequestEnded {scopes, check, outcome}`: the device's request for scopes (`requestScopes`) was refused
/// on the workstation (`denied`: `codex-bridge devices deny`) or nobody decided it in time (`expired`). A granted
/// one is told by `scopesChanged`.
public struct ScopeRequestEnded: Codable, Sendable, Hashable {
    /// Why it ended without the scopes.
    public enum Outcome: String, Codable, Sendable, Hashable {
        case denied, expired
    }

    /// The scopes it asked for.
    public var scopes: Scopes
    /// The request's check code (which request of the device's this was).
    public var check: String
    public var outcome: Outcome
    public init(scopes: Scopes, check: String, outcome: Outcome) {
        self.scopes = scopes
        self.check = check
        self.outcome = outcome
    }
}
