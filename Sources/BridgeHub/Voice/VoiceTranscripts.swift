import BridgeProtocol
import BridgeStore
import Foundation
import Logging

/// `readThread`'s `voice`: the thread's transcript parts as the journal holds them (`bridge/voiceTranscript`).
struct VoiceTranscripts: Sendable {
    let journal: EventJournal
    let logger: Logger

    /// Most transcript parts `readThread` lists.
    static let maxParts = 200

    /// The thread's newest parts, oldest first (nil when none, or when the journal cannot be read).
    func parts(of threadId: String) async -> [VoiceTranscriptPart]? {
        do {
            let frames = try await journal.voiceFrames(of: threadId, limit: Self.maxParts)
            let parts = frames.compactMap { text -> VoiceTranscriptPart? in
                guard let frame = try? JSONValue(parsing: Data(text.utf8)), let seq = frame["seq"]?.numberValue,
                    let role = frame["data"]?["role"]?.stringValue, let said = frame["data"]?["text"]?.stringValue
                else { return nil }
                return VoiceTranscriptPart(seq: Int64(seq), role: role, text: said)
            }
            return parts.isEmpty ? nil : parts
        } catch {
            logger.warning("Cannot read a thread's voice transcript", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
            return nil
        }
    }
}
