import Foundation

/// A journaled message a linked bridge sent, as the home bridge relays it: the message and, for an event, its
/// `data` exactly as the linked bridge wrote it (``eventDataJSON``: relayed as text, never parsed into a tree;
/// the message's own `data` is then `null`).
public struct RelayedFrame: Sendable {
    public var message: ServerMessage
    /// For an event: the JSON text of its `data` (valid JSON, checked by the scan).
    public var eventDataJSON: String?
    /// The size of the frame as it was received (0 when not known): what a relay counts against its link's budget.
    public var receivedBytes: Int

    public init(message: ServerMessage, eventDataJSON: String? = nil, receivedBytes: Int = 0) {
        self.message = message
        self.eventDataJSON = eventDataJSON
        self.receivedBytes = receivedBytes
    }

    /// Scans an event frame (`{"data":…,"kind":"event","seq":N,"threadId":"…","turnId":"…","type":"…"}`, members in
    /// any order, unknown ones skipped), validating all of it. nil when it is not an event frame this scan can
    /// vouch for (another kind, escapes in an id or the type, a seq that is not a plain integer, bad JSON): the
    /// caller decodes it fully, which decides exactly as before.
    public static func scanEvent(_ text: String) -> RelayedFrame? {
        var text = text
        return text.withUTF8 { utf8 in scanEvent(UnsafeRawBufferPointer(utf8)) }
    }

    static func scanEvent(_ bytes: UnsafeRawBufferPointer) -> RelayedFrame? {
        var json = JSONScanner(bytes)
        guard json.expect(UInt8(ascii: "{")) else { return nil }
        json.skipWhitespace()
        var data: Range<Int>?
        var isEvent = false
        var seq: Int64?
        var threadId: String?
        var turnId: String?
        var type: String?
        if json.peek == UInt8(ascii: "}") { return nil }
        repeat {
            guard let (key, keyEscaped) = json.scanKey(), !keyEscaped else { return nil }
            let start = json.index
            if json.equals(key, "data") {
                guard data == nil, json.skipValue(depth: 1) else { return nil }
                data = start..<json.index
            } else if json.equals(key, "seq") {
                guard seq == nil, json.skipNumber() else { return nil }
                guard let value = Int64(json.text(start..<json.index)), value >= 0 else { return nil }
                seq = value
            } else if json.equals(key, "turnId"), json.peek == UInt8(ascii: "n") {
                guard json.literal("null") else { return nil }
            } else if json.equals(key, "kind") || json.equals(key, "threadId") || json.equals(key, "turnId") || json.equals(key, "type") {
                guard json.peek == UInt8(ascii: "\""), let (contents, escaped) = json.scanString(), !escaped else { return nil }
                let value = json.text(contents)
                if json.equals(key, "kind") {
                    guard value == "event" else { return nil }
                    isEvent = true
                } else if json.equals(key, "threadId") {
                    guard threadId == nil else { return nil }
                    threadId = value
                } else if json.equals(key, "turnId") {
                    guard turnId == nil else { return nil }
                    turnId = value
                } else {
                    guard type == nil else { return nil }
                    type = value
                }
            } else {
                guard json.skipValue(depth: 1) else { return nil }
            }
            guard let more = json.nextMember() else { return nil }
            if !more { break }
            json.skipWhitespace()
        } while true
        json.skipWhitespace()
        guard json.atEnd, isEvent, let data, let seq, let threadId, let type else { return nil }
        let event = ThreadEvent(seq: seq, threadId: threadId, turnId: turnId, type: type, data: .null)
        return RelayedFrame(message: .event(event), eventDataJSON: json.text(data))
    }
}
