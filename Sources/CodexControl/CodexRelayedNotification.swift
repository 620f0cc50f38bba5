import BridgeProtocol
import Foundation

/// A high-volume notification (an `item/.../delta`) as read from Codex, without a `JSONValue` tree of its
/// params: the method, the two ids a relay routes by, and the params exactly as Codex wrote them (valid JSON,
/// checked while reading). ``params`` parses them when something needs more.
public struct CodexRelayedNotification: Sendable, Hashable {
    /// `item/agentMessage/delta`, ... (one of ``CodexAppServer/Options/relayedMethods``).
    public var method: String
    /// `params.threadId`.
    public var threadId: String
    /// `params.turnId`, when present.
    public var turnId: String?
    /// The params object as Codex wrote it.
    public var paramsJSON: String

    public init(method: String, threadId: String, turnId: String?, paramsJSON: String) {
        self.method = method
        self.threadId = threadId
        self.turnId = turnId
        self.paramsJSON = paramsJSON
    }

    /// The params as a value (parsed now; `.null` if the text is not JSON, which the reader never hands out).
    public var params: JSONValue {
        (try? JSONValue(parsing: Data(paramsJSON.utf8))) ?? .null
    }
}
