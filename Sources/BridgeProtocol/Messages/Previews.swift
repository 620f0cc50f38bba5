/// `listPreviews {threadId}` needs no more than ``ThreadRef``; `openPreview {threadId, port}` names one of the
/// servers `listPreviews` offered.
public struct OpenPreview: ThreadPayload {
    public var threadId: String
    /// A TCP port `listPreviews` listed for this thread.
    public var port: Int
    public init(threadId: String, port: Int) {
        self.threadId = threadId
        self.port = port
    }
}

/// One dev server a thread's processes listen with on loopback.
public struct PreviewServer: Codable, Sendable, Hashable {
    /// The TCP port it listens on (127.0.0.1, ::1 or every address).
    public var port: Int
    /// The listening process's name (`/proc/PID/comm`, e.g. `node`, `python3`).
    public var process: String
    /// Whether it answered a short HTTP request.
    public var http: Bool
    public init(port: Int, process: String, http: Bool) {
        self.port = port
        self.process = process
        self.http = http
    }
}

/// `previews {threadId, servers}`: the answer to `listPreviews`, ordered by port.
public struct PreviewList: Codable, Sendable, Hashable {
    public var threadId: String
    public var servers: [PreviewServer]
    public init(threadId: String, servers: [PreviewServer]) {
        self.threadId = threadId
        self.servers = servers
    }
}

/// `preview {threadId, port, url, expiresAt, ticket}`: the answer to `openPreview`, a single-use ticket for the
/// bridge's preview port. Opening `/.codex-bridge/open?ticket=…` there (before `expiresAt`, seconds since 1970)
/// exchanges it for a cookie of the preview's own origin. A client builds that address itself from `ticket` and
/// `helloAck.previewPort`; `url` is the same address as the bridge names it, for clients that predate `ticket`.
public struct PreviewOpened: Codable, Sendable, Hashable {
    public var threadId: String
    public var port: Int
    public var url: String
    public var expiresAt: Double
    /// `ID.SECRET`, base64url on both sides; absent from bridges that predate it.
    public var ticket: String?
    public init(threadId: String, port: Int, url: String, expiresAt: Double, ticket: String? = nil) {
        self.threadId = threadId
        self.port = port
        self.url = url
        self.expiresAt = expiresAt
        self.ticket = ticket
    }
}
