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

/// `preview {threadId, port, url, expiresAt}`: the answer to `openPreview`, a single-use address on the bridge's
/// preview origin. Opening it (before `expiresAt`, seconds since 1970) exchanges the ticket for a cookie on that
/// origin.
public struct PreviewOpened: Codable, Sendable, Hashable {
    public var threadId: String
    public var port: Int
    public var url: String
    public var expiresAt: Double
    public init(threadId: String, port: Int, url: String, expiresAt: Double) {
        self.threadId = threadId
        self.port = port
        self.url = url
        self.expiresAt = expiresAt
    }
}
