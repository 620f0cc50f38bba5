/// What a ticket, then a cookie, lets a browser reach: one port of one thread, for one device.
public struct PreviewGrant: Sendable, Hashable {
    /// The paired device that opened it; nil for a session of the shared secret.
    public var deviceId: String?
    public var threadId: String
    public var port: Int
    /// Where the proxy connects (`127.0.0.1`, `::1`).
    public var connectHost: String

    public init(deviceId: String?, threadId: String, port: Int, connectHost: String) {
        self.deviceId = deviceId
        self.threadId = threadId
        self.port = port
        self.connectHost = connectHost
    }

    /// `host:port` of the dev server, an IPv6 address in brackets.
    public var upstreamAuthority: String {
        connectHost.contains(":") ? "[\(connectHost)]:\(port)" : "\(connectHost):\(port)"
    }
}
