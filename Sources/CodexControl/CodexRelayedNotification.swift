import BridgeProtocol
import Foundation

/// A high-volume notification (an `item/.../delta`) as read from Codex, without a `JSONValue` tree of its
/// params: the method, the two ids a relay routes by, and the params exactly as Codex wrote them (valid JSON,
/// checked while reading). ``params`` parses them when something needs more.
///
/// A class (immutable): one reference is passed along the reader → stream → hub path, not four strings.
public final class CodexRelayedNotification: Sendable, Hashable, CustomStringConvertible {
    /// `item/agentMessage/delta`, ... (one of ``CodexAppServer/Options/relayedMethods``).
    public let method: String
    /// The method's kind (nil: a method this bridge does not know).
    public let kind: CodexNotification.Kind?
    /// `params.threadId`.
    public let threadId: String
    /// `params.turnId`, when present.
    public let turnId: String?
    /// The params object as Codex wrote it.
    public let paramsJSON: String

    public convenience init(method: String, threadId: String, turnId: String?, paramsJSON: String) {
        self.init(method: method, kind: CodexNotification.Kind(method: method), threadId: threadId, turnId: turnId, paramsJSON: paramsJSON)
    }

    /// With its kind already known (the reader's cache of method names).
    init(method: String, kind: CodexNotification.Kind?, threadId: String, turnId: String?, paramsJSON: String) {
        self.method = method
        self.kind = kind
        self.threadId = threadId
        self.turnId = turnId
        self.paramsJSON = paramsJSON
    }

    public static func == (lhs: CodexRelayedNotification, rhs: CodexRelayedNotification) -> Bool {
        lhs.method == rhs.method && lhs.threadId == rhs.threadId && lhs.turnId == rhs.turnId && lhs.paramsJSON == rhs.paramsJSON
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(threadId)
        hasher.combine(turnId)
        hasher.combine(paramsJSON)
    }

    public var description: String { "\(method) \(threadId) \(turnId ?? "-") \(paramsJSON)" }

    /// The params as a value (parsed now; `.null` if the text is not JSON, which the reader never hands out).
    public var params: JSONValue {
        (try? JSONValue(parsing: Data(paramsJSON.utf8))) ?? .null
    }

    /// The same notification with its params parsed.
    public var parsed: CodexNotification {
        CodexNotification(kind: kind, method: method, params: params, paramsJSON: paramsJSON)
    }
}
