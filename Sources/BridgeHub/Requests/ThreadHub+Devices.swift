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
            let values = frames.compactMap { try? JSONValue(parsing: Data($0.utf8)) }
            return values.isEmpty ? nil : values
        } catch {
            logger.warning("Cannot read a thread's approvals", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
            return nil
        }
    }
}
