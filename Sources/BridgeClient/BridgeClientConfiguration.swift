import BridgeProtocol
import Foundation

/// How a ``BridgeClient`` connects.
public struct BridgeClientConfiguration: Sendable {
    /// Where to connect.
    public var target: BridgeTarget
    /// The credential for `hello.token`. Overrides the pairing URL's code or token (e.g. a device token stored
    /// from an earlier pairing). Required for ``BridgeTarget/endpoints(_:pin:)``.
    public var token: String?
    /// Sent with a pairing code: what `codex-bridge devices list` shows.
    public var device: DeviceInfo
    /// A stable id for shared-secret clients (`hello.clientId`): the bridge then remembers subscriptions and
    /// deduplicates retried requests for it. Ignored for device tokens. Default: a new UUID per client.
    public var clientId: String?
    /// The reconnect schedule.
    public var backoff: ReconnectBackoff
    /// Whether a lost connection is re-established (with ``backoff``); false ends the client instead.
    public var reconnects: Bool
    /// How long one candidate may take to connect and answer `hello`.
    public var handshakeTimeout: Duration
    /// Send `ack {seq}` after this many journaled messages.
    public var ackEvery: Int
    /// Called when a bridge that confirms pairings (`serve --confirm-pairing`) makes this pairing wait: show the
    /// check code; the handshake then waits (at most until `expiresAt`) for the workstation.
    public var onPairingPending: (@Sendable (PairingPending) -> Void)?
    /// The resume cursor to start from (`hello.resume.lastSeq` of the first connection): the highest seq a
    /// previous client of the same identity processed (a relay keeps it in its own journal). nil: from now.
    public var resumeFrom: Int64?
    /// A relay (the fleet's home bridge): journaled messages arrive on ``BridgeClient/relayed`` instead of
    /// ``BridgeClient/events``, an event with its `data` as the text the bridge wrote (never parsed into a tree).
    public var relaysFrames = false
    /// The clock the handshake's timeouts run on (a test's is advanced by hand).
    public var clock: any Clock<Duration> = ContinuousClock()

    public init(
        target: BridgeTarget, token: String? = nil,
        device: DeviceInfo = DeviceInfo(name: ProcessInfo.processInfo.hostName, platform: BridgeClientConfiguration.platform),
        clientId: String? = UUID().uuidString.lowercased(), backoff: ReconnectBackoff = ReconnectBackoff(),
        reconnects: Bool = true, handshakeTimeout: Duration = .seconds(10), ackEvery: Int = 32
    ) {
        self.target = target
        self.token = token
        self.device = device
        self.clientId = clientId
        self.backoff = backoff
        self.reconnects = reconnects
        self.handshakeTimeout = handshakeTimeout
        self.ackEvery = ackEvery
    }

    /// This system, as `device.platform`.
    public static var platform: String {
        #if os(Linux)
            "linux"
        #elseif os(iOS)
            "ios"
        #elseif os(macOS)
            "macos"
        #else
            "unknown"
        #endif
    }
}
