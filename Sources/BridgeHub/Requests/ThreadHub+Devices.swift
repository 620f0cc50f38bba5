import BridgeProtocol
import BridgeStore
import Foundation
import Logging

/// A device's name for an answer, and a thread's journaled approvals and questions for `readThread` (the `admin`
/// requests are ``DeviceAdmin``'s).
extension ThreadHub {
    /// A paired device's name (for an answer's `deviceName`); nil for the shared secret or when unknown.
    public func deviceName(_ deviceId: String?) async -> String? {
        guard let deviceId else { return nil }
        return try? await storage.devices.device(id: deviceId)?.name
    }

    /// The thread's journaled approvals and questions with their answers, for `readThread` (nil when none).
    func requestFrames(of threadId: String) async -> [JSONValue]? {
        do {
            let frames = try await storage.journal.requestFrames(of: threadId, limit: 400)
            let values = frames.compactMap { frame -> JSONValue? in
                guard case .object(var fields)? = try? JSONValue(parsing: Data(frame.text.utf8)) else { return nil }
                // Where it came in its turn: before the first item started after it (BRIDGE.md `readThread`).
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
