import BridgeProtocol
import CodexControl

/// Builds the `event` frame of a relayed delta byte for byte as `ServerMessage.encodedText` does
/// (`{"data":…,"kind":"event","seq":…,"threadId":…,"turnId":…,"type":…}`), with Codex's params text as
/// `data`. What follows `seq` depends only on the thread, turn and type, which repeat from one delta to the
/// next: it is built once and reused while they do.
struct RelayFrame {
    private var threadId = ""
    private var turnId: String?
    private var type = ""
    private var tail = ""
    private static let head = "{\"data\":"
    private static let kind = ",\"kind\":\"event\",\"seq\":"

    /// The thread of the last relayed delta, which the hub's ``ThreadBook`` holds.
    var knownThread: String?

    /// Whether a relayed notification of `kind` may skip the full path: a known kind that is journaled and that
    /// nothing beside the journal looks into (``EventDescriptor``), whatever Codex's options say.
    func relaysAsIs(_ kind: CodexNotification.Kind?) -> Bool {
        guard let kind else { return false }
        let descriptor = EventDescriptor.of(kind)
        return descriptor.disposition == .journaled && !descriptor.observed
    }

    /// The frame for one delta.
    mutating func text(seq: Int64, threadId: String, turnId: String?, type: String, dataJSON: String) -> String {
        if tail.isEmpty || threadId != self.threadId || turnId != self.turnId || type != self.type {
            self.threadId = threadId
            self.turnId = turnId
            self.type = type
            var tail = ",\"threadId\":"
            JSONValue.writeString(threadId, to: &tail)
            if let turnId {
                tail += ",\"turnId\":"
                JSONValue.writeString(turnId, to: &tail)
            }
            tail += ",\"type\":"
            JSONValue.writeString(type, to: &tail)
            tail += "}"
            self.tail = tail
        }
        // One allocation: the pieces are copied into a string of the exact size.
        var head = Self.head
        var data = dataJSON
        var kind = Self.kind
        var number = String(seq)
        var tail = self.tail
        let count = head.utf8.count + data.utf8.count + kind.utf8.count + number.utf8.count + tail.utf8.count
        return String(unsafeUninitializedCapacity: count) { buffer in
            var at = 0
            func put(_ text: inout String) {
                text.withUTF8 { bytes in
                    guard let base = bytes.baseAddress else { return }
                    UnsafeMutableRawPointer(buffer.baseAddress! + at).copyMemory(from: base, byteCount: bytes.count)
                    at += bytes.count
                }
            }
            put(&head)
            put(&data)
            put(&kind)
            put(&number)
            put(&tail)
            return at
        }
    }
}
