import BridgeProtocol
import BridgeStore
import Foundation
import Logging

/// The `admin` requests: list, scope and revoke devices, mint pairing codes, read the audit log — what
/// `codex-bridge devices`, `pair` and `audit` do on the workstation, for a phone trusted with it.
extension ThreadHub {
    /// Actions of each device a `devices` answer carries.
    static let recentActionsPerDevice = 5

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

    /// A device as an admin sees it.
    func summary(_ record: DeviceRecord, for session: ClientSession, recent: [AuditEntry]? = nil) -> DeviceSummary {
        DeviceSummary(
            id: record.id, name: record.name, platform: record.platform, pairedAt: record.pairedAt.timeIntervalSince1970,
            lastSeenAt: record.lastSeenAt?.timeIntervalSince1970, lastAddress: record.lastAddress, scopes: record.scopes,
            revoked: record.isRevoked, connected: sessions.values.contains { $0.session.principal.deviceId == record.id },
            current: session.principal.deviceId == record.id, recentActions: recent)
    }

    static func scopes(_ names: [String]) throws -> Scopes {
        do {
            return try Scopes(parsing: names.joined(separator: ","))
        } catch {
            throw HubError(.badRequest, error.message)
        }
    }

    /// Runs a registry change, answering its refusals with wire codes.
    static func registry<T>(_ change: () async throws -> T) async throws -> T {
        do {
            return try await change()
        } catch let error as DeviceRegistryError {
            switch error.code {
            case .deviceNotFound: throw HubError(.notFound, error.message)
            case .alreadyRevoked: throw HubError(.conflict, error.message)
            default: throw HubError(.badRequest, error.message)
            }
        }
    }
}
