import BridgeLive
import BridgeProtocol
import BridgeWeb
import NIOSSL

/// Everything the WebSocket server needs to know; each field has a documented default.
public struct BridgeServerConfiguration: Sendable {
    /// Address to bind. `0.0.0.0` binds every IPv4 interface.
    public var host: String
    /// Port to bind; 0 picks a free one.
    public var port: Int
    /// Who this server says it is in `helloAck`.
    public var server: ServerInfo
    /// How long a new connection may take to send a valid `hello`.
    public var helloTimeout: Duration
    /// Largest accepted message; a larger frame or message closes with 1009.
    public var maxMessageBytes: Int
    /// Failed authentications allowed per remote address within `authFailureWindow`; the next is refused
    /// with `rate_limited`.
    public var authFailureLimit: Int
    /// The window `authFailureLimit` counts over.
    public var authFailureWindow: Duration
    /// Frames queued for one connection before it is closed with 1013 for not reading.
    public var outboxCapacity: Int
    /// Bytes of frames queued for one connection before the same (one larger frame goes into an empty queue):
    /// 64 MiB. Frames relayed from a linked machine may be 8 MiB each (issue 44).
    public var outboxMaxBytes = 64 << 20
    /// The live channel's frame size and watermarks (told to clients in `helloAck.live`).
    public var live = LiveLimits.standard
    /// Interval of server WebSocket pings; nil disables them.
    public var pingInterval: Duration?
    /// How long the close handshake may take before the socket is dropped.
    public var closeTimeout: Duration
    /// TLS for every connection (`wss://`, and HTTPS for `/healthz` and `/metrics` on the same port); nil
    /// serves plaintext.
    public var tls: TLSContextSource?
    /// The web app served on `GET /` and its files; nil serves none.
    public var webAssets: WebAssets?
    /// The workstation's certificate authority that issued the TLS certificate (`serve --tls`): published at
    /// `GET /ca.crt` and `GET /ca.mobileconfig`, and the plain-HTTP "Trust this workstation" page answers on
    /// the TLS port. Nil with a provided certificate (plain HTTP on the TLS port is then redirected to https).
    public var certificateAuthority: PublishedAuthority?
    /// How long a new connection may take to send its first request head (the upgrade or an HTTP request);
    /// slower ones are closed (OpenSSH's LoginGraceTime, for the HTTP part).
    public var requestHeadTimeout: Duration
    /// Most connections not yet authenticated at once (plain HTTP requests included); past it the oldest is
    /// closed to make room. Authenticated WebSocket clients never count and are never shed.
    public var maxUnauthenticated: Int
    /// Most connections not yet authenticated from one remote address at once; past it that address's oldest
    /// is closed.
    public var maxUnauthenticatedPerAddress: Int
    /// Echo every WebSocket message back instead of speaking the bridge protocol (no hello, no hub): connections
    /// get an ``EchoConnectionHandler`` over the same ``WebSocketEndpoint``, the stack under Autobahn|Testsuite
    /// (`codex-bridge-echo`). Never set by `serve`.
    public var echoMode = false

    public init(
        host: String = "0.0.0.0",
        port: Int = 9099,
        server: ServerInfo,
        helloTimeout: Duration = .seconds(10),
        maxMessageBytes: Int = 1 << 20,
        authFailureLimit: Int = 5,
        authFailureWindow: Duration = .seconds(60),
        outboxCapacity: Int = 4096,
        pingInterval: Duration? = .seconds(20),
        closeTimeout: Duration = .seconds(3),
        tls: TLSContextSource? = nil,
        webAssets: WebAssets? = nil,
        certificateAuthority: PublishedAuthority? = nil,
        requestHeadTimeout: Duration = .seconds(5),
        maxUnauthenticated: Int = 512,
        maxUnauthenticatedPerAddress: Int = 128
    ) {
        self.host = host
        self.port = port
        self.server = server
        self.helloTimeout = helloTimeout
        self.maxMessageBytes = maxMessageBytes
        self.authFailureLimit = authFailureLimit
        self.authFailureWindow = authFailureWindow
        self.outboxCapacity = outboxCapacity
        self.pingInterval = pingInterval
        self.closeTimeout = closeTimeout
        self.tls = tls
        self.webAssets = webAssets
        self.certificateAuthority = certificateAuthority
        self.requestHeadTimeout = requestHeadTimeout
        self.maxUnauthenticated = maxUnauthenticated
        self.maxUnauthenticatedPerAddress = maxUnauthenticatedPerAddress
    }
}
