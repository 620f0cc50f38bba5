/// The first frame a client sends: `{"kind":"hello","version":1,"token":"…"}`.
public struct Hello: Codable, Sendable, Hashable {
    /// The highest protocol version the client speaks.
    public var version: Int
    /// The shared secret, a one-time pairing code or a device token. May be omitted when the upgrade
    /// request carried a valid `Authorization: Bearer` header.
    public var token: String?
    /// Describes the device; used when pairing with a one-time code.
    public var device: DeviceInfo?
    /// Asks the server to replay journaled events after `lastSeq` (see BRIDGE.md, "Resume").
    public var resume: ResumeCursor?
    /// A stable id a shared-secret client chooses for itself (e.g. a UUID kept across launches), up to 200
    /// bytes. With it the bridge remembers the client's subscriptions and deduplicates its retried requests,
    /// as it does for a paired device. Ignored for device tokens (the device id is the identity).
    public var clientId: String?
    /// Asks for the fleet: the threads of every machine linked to this bridge, each labelled with its `machine`
    /// (see BRIDGE.md, "Several workstations"). Absent or false: this bridge's own threads only, as always.
    public var fleet: Bool?

    public init(
        version: Int = ProtocolVersion.current, token: String? = nil, device: DeviceInfo? = nil, resume: ResumeCursor? = nil,
        clientId: String? = nil, fleet: Bool? = nil
    ) {
        self.fleet = fleet
        self.version = version
        self.token = token
        self.device = device
        self.resume = resume
        self.clientId = clientId
    }
}

/// What a device says about itself when it pairs.
public struct DeviceInfo: Codable, Sendable, Hashable {
    /// A human name, e.g. "Ana's iPhone".
    public var name: String?
    /// e.g. "ios", "android", "linux".
    public var platform: String?

    public init(name: String? = nil, platform: String? = nil) {
        self.name = name
        self.platform = platform
    }
}

/// A resume cursor: the last `seq` the client has processed.
public struct ResumeCursor: Codable, Sendable, Hashable {
    public var lastSeq: Int64
    public init(lastSeq: Int64) { self.lastSeq = lastSeq }
}

/// Identifies the bridge a client talks to; stable across restarts.
public struct ServerInfo: Codable, Sendable, Hashable {
    /// A stable random id for this bridge installation.
    public var id: String
    /// A human name (the host name unless configured).
    public var name: String
    /// The bridge's software version.
    public var version: String
    /// The VAPID public key for Web Push (`applicationServerKey`): base64url of the uncompressed P-256 point;
    /// absent when push is off. Only in an authenticated `helloAck`.
    public var pushPublicKey: String?

    public init(id: String, name: String, version: String, pushPublicKey: String? = nil) {
        self.id = id
        self.name = name
        self.version = version
        self.pushPublicKey = pushPublicKey
    }
}

/// What this bridge lets a client choose: where threads may run and with which sandbox and approval policy.
public struct ClientPolicy: Codable, Sendable, Hashable {
    /// The directories threads may run in (resolved absolute paths).
    public var roots: [String]
    /// The sandboxes `startThread` may name.
    public var sandboxes: [String]
    /// The sandbox used when `startThread` names none.
    public var defaultSandbox: String
    /// The approval policies `startThread` may name.
    public var approvalPolicies: [String]
    /// The approval policy used when `startThread` names none.
    public var defaultApprovalPolicy: String

    public init(roots: [String], sandboxes: [String], defaultSandbox: String, approvalPolicies: [String], defaultApprovalPolicy: String) {
        self.roots = roots
        self.sandboxes = sandboxes
        self.defaultSandbox = defaultSandbox
        self.approvalPolicies = approvalPolicies
        self.defaultApprovalPolicy = defaultApprovalPolicy
    }
}

/// The server's answer to `hello`.
public struct HelloAck: Codable, Sendable, Hashable {
    /// The protocol version the server will speak: the client's own if the server supports it, else the
    /// server's highest.
    public var version: Int
    /// Whether the handshake succeeded. When false, `error` says why and the server closes with 1008.
    public var ok: Bool
    /// Why the handshake failed.
    public var error: WireError?
    /// Who the server is.
    public var server: ServerInfo?
    /// Every protocol version the server supports.
    public var versions: [Int]?
    /// The device this connection is authenticated as (absent for the shared secret).
    public var deviceId: String?
    /// A new long-lived secret for this device; present only right after pairing with a one-time code.
    public var deviceToken: String?
    /// The highest `seq` journaled so far.
    public var lastSeq: Int64?
    /// `"ok"` when every event after the client's `resume.lastSeq` is replayed, `"gap"` when some were
    /// pruned (the client must re-read its threads).
    public var resume: ResumeStatus?
    /// Thread ids this device was subscribed to and is again, without asking.
    public var restoredSubscriptions: [String]?
    /// What the client may choose (roots, sandboxes, approval policies); absent on a failed handshake.
    public var policy: ClientPolicy?
    /// What this connection may do (every scope for the shared secret); absent on a failed handshake.
    public var scopes: Scopes?
    /// With `hello.fleet`: every machine of the fleet and its state, this bridge first.
    public var machines: [MachineStatus]?
    /// The port where this bridge's previews open (`/.codex-bridge/open?ticket=` of an `openPreview` answer);
    /// absent when it serves none. A client builds a preview's address from it and the ticket alone.
    public var previewPort: Int?
    /// The live channel's limits: present when this bridge speaks it (binary frames for live-only streams).
    public var live: LiveChannelInfo?

    public init(
        version: Int, ok: Bool, error: WireError? = nil, server: ServerInfo? = nil, versions: [Int]? = nil,
        deviceId: String? = nil, deviceToken: String? = nil, lastSeq: Int64? = nil, resume: ResumeStatus? = nil,
        restoredSubscriptions: [String]? = nil, policy: ClientPolicy? = nil, scopes: Scopes? = nil, machines: [MachineStatus]? = nil,
        previewPort: Int? = nil, live: LiveChannelInfo? = nil
    ) {
        self.live = live
        self.previewPort = previewPort
        self.machines = machines
        self.scopes = scopes
        self.version = version
        self.ok = ok
        self.error = error
        self.server = server
        self.versions = versions
        self.deviceId = deviceId
        self.deviceToken = deviceToken
        self.lastSeq = lastSeq
        self.resume = resume
        self.restoredSubscriptions = restoredSubscriptions
        self.policy = policy
    }
}

/// Whether a resume cursor could be honoured.
public enum ResumeStatus: String, Codable, Sendable, Hashable {
    /// Every event after the cursor is replayed.
    case ok
    /// Some events after the cursor were pruned; re-read threads with `readThread`.
    case gap
}

/// A code and a human message; the `error` member of a failed `helloAck`.
public struct WireError: Codable, Sendable, Hashable, Error {
    public var code: BridgeErrorCode
    public var message: String
    public init(code: BridgeErrorCode, message: String) {
        self.code = code
        self.message = message
    }
}
