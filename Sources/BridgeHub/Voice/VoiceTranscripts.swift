import BridgeProtocol
import BridgeStore
import Foundation
import Logging

/// `readThread`'s `voice`: the thread's transcript parts as the journal holds them (`bridge/voiceTranscript`), each
/// placed where it was said among the thread's items (BRIDGE.md `readThread`).
struct VoiceTranscripts: Sendable {
    let journal: EventJournal
    let logger: Logger

    /// Most transcript parts `readThread` lists.
    static let maxParts = 200

    /// The thread's newest parts, oldest first, each with the first item started after it (nil when none, or when
    /// the journal cannot be read).
    func parts(of threadId: String) async -> [VoiceTranscriptPart]? {
        do {
            let frames = try await journal.voiceFrames(of: threadId, limit: Self.maxParts)
            let parts = frames.compactMap { frame -> VoiceTranscriptPart? in
                guard let event = try? JSONValue(parsing: Data(frame.text.utf8)), let seq = event["seq"]?.numberValue,
                    let role = event["data"]?["role"]?.stringValue, let said = event["data"]?["text"]?.stringValue
                else { return nil }
                let next = frame.nextItem.flatMap { try? JSONValue(parsing: Data($0.utf8)) }
                return VoiceTranscriptPart(
                    seq: Int64(seq), role: role, text: said, beforeItemId: next?["data"]?["item"]?["id"]?.stringValue)
            }
            return parts.isEmpty ? nil : parts
        } catch {
            logger.warning("Cannot read a thread's voice transcript", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
            return nil
        }
    }
}
