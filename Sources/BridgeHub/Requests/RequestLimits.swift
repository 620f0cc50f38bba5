import BridgeProtocol

/// The bounds a request's ids and a session's subscriptions are held to, checked before any work (and by the
/// routes that take a thread id outside the hub).
enum RequestLimits {
    /// Most threads one session may subscribe to (besides `*`).
    static let maxSubscriptionsPerSession = 1000
    /// Longest thread id (and turn id) accepted.
    static let maxThreadIdBytes = 256

    static func checkThreadId(_ threadId: String) throws {
        guard !threadId.isEmpty, threadId.utf8.count <= maxThreadIdBytes else {
            throw HubError(.badRequest, "threadId must be 1 to \(maxThreadIdBytes) bytes")
        }
    }
}
