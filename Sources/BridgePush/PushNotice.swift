import BridgeStore
import Crypto
import Foundation

/// One thing to tell a device: what the notification shows and what its actions answer.
public struct PushNotice: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case approval
        case turnCompleted
        case turnFailed
        /// Replaces an approval's notification (same tag) once it was answered elsewhere.
        case resolved
    }

    public var kind: Kind
    public var title: String
    public var body: String
    /// Notifications with one tag replace each other (an approval and its follow-up).
    public var tag: String
    public var threadId: String
    public var approvalId: String?

    public init(kind: Kind, title: String, body: String, tag: String, threadId: String, approvalId: String? = nil) {
        self.kind = kind
        self.title = title
        self.body = body
        self.tag = tag
        self.threadId = threadId
        self.approvalId = approvalId
    }

    /// The event kind a subscription chooses this notice with (follow-ups go with approvals).
    public var eventKind: PushEventKind {
        switch kind {
        case .approval, .resolved: .approval
        case .turnCompleted: .turnCompleted
        case .turnFailed: .turnFailed
        }
    }

    /// An RFC 8030 `Topic` for the tag (32 URL-safe characters): a newer message replaces an undelivered one.
    public var topic: String {
        String(Base64URL.encode(SHA256.hash(data: Data(tag.utf8))).prefix(32))
    }

    /// Largest payload sent (the 3 KB; push services take 4 KB).
    public static let maxPayloadBytes = 3072

    /// The Web Push payload (JSON, see BRIDGE.md "Push payload"), at most ``maxPayloadBytes``: the body is
    /// shortened when needed. `token` is this device's single-use action token for an approval.
    public func payload(token: String?) -> [UInt8] {
        var body = self.body
        while true {
            let wire = Wire(
                v: 1, type: kind.rawValue, title: String(title.prefix(120)), body: body, tag: tag, threadId: threadId,
                approvalId: approvalId,
                token: token, actionPath: token == nil ? nil : "/push/action", url: "/#/t/" + Self.percentEncoded(threadId))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let bytes = [UInt8]((try? encoder.encode(wire)) ?? Data())
            if bytes.count <= Self.maxPayloadBytes || body.isEmpty { return bytes }
            body = String(body.prefix(max(0, body.count - (bytes.count - Self.maxPayloadBytes) - 8))) + "…"
            if body == "…" { body = "" }
        }
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }

    struct Wire: Encodable {
        var v: Int
        var type: String
        var title: String
        var body: String
        var tag: String
        var threadId: String
        var approvalId: String?
        var token: String?
        var actionPath: String?
        var url: String
    }

    /// The first non-empty line of `text`, at most `limit` characters, control characters removed.
    public static func firstLine(_ text: String, limit: Int = 200) -> String {
        let line = text.split(whereSeparator: \.isNewline).first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
        let clean = String(String.UnicodeScalarView(line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
            .trimmingCharacters(in: .whitespaces)
        return clean.count > limit ? String(clean.prefix(limit - 1)) + "…" : clean
    }
}
