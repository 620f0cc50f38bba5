import BridgeProtocol
import BridgeStore
import Foundation
import Logging

/// A thread's journaled approvals and questions with their answers, for `readThread` and `readTurns`: each placed
/// where it came in its turn (before the first item started after it, BRIDGE.md `readThread`).
struct JournaledRequests: Sendable {
    let journal: EventJournal
    let logger: Logger

    /// Most requests read for one thread.
    static let limit = 400

    /// The thread's requests in journal order (nil when none, or when the journal cannot be read).
    func frames(of threadId: String) async -> [JSONValue]? {
        do {
            let frames = try await journal.requestFrames(of: threadId, limit: Self.limit)
            let values = frames.compactMap { frame -> JSONValue? in
                guard case .object(var fields)? = try? JSONValue(parsing: Data(frame.text.utf8)) else { return nil }
                if let next = frame.nextItem, let item = try? JSONValue(parsing: Data(next.utf8)),
                    case .string(let id)? = item["data"]?["item"]?["id"]
                {
                    fields["beforeItemId"] = .string(id)
                }
                return .object(fields)
            }
            return values.isEmpty ? nil : values
        } catch {
            logger.warning("Cannot read a thread's approvals", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
            return nil
        }
    }
}
