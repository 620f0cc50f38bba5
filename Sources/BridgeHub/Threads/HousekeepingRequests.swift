import BridgeProtocol
import CodexControl
import Foundation

/// A thread's housekeeping: renaming, archiving, compacting, deleting and reverting it (``ThreadHousekeeping``
/// speaks to Codex). Compacting, deleting and reverting wait until no turn runs; compacting and reverting resume
/// the thread first, like any turn.
struct HousekeepingRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.renameThread) { (services, rename: RenameThread, _) in
            let name = rename.name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...200).contains(name.count), !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw HubError(.badRequest, "name must be 1 to 200 characters without control characters")
            }
            try await services.codex.threadNameSet(threadId: rename.threadId, name: name, timeout: services.policy.codexTimeout)
            return .accepted(Accepted(threadId: rename.threadId))
        }
        routes.on(.archiveThread) { (services, ref: ThreadRef, _) in .accepted(try await Self.setArchived(ref.threadId, true, on: services))
        }
        routes.on(.unarchiveThread) { (services, ref: ThreadRef, _) in
            .accepted(try await Self.setArchived(ref.threadId, false, on: services))
        }
        routes.on(.compactThread) { (services, ref: ThreadRef, context) in
            try await services.hub.refuseWhileShuttingDown()
            try await services.ensureLoaded(ref.threadId, policy: context.policy)
            try await services.hub.refuseWhileRunning(ref.threadId, "compact")
            try await services.housekeeping.compact(ref.threadId)
            return .accepted(Accepted(threadId: ref.threadId))
        }
        routes.on(.deleteThread) { (services, ref: ThreadRef, _) in
            try await services.hub.refuseWhileRunning(ref.threadId, "delete")
            try await services.housekeeping.delete(ref.threadId)
            return .accepted(Accepted(threadId: ref.threadId))
        }
        // The thread's history from `turnId` on is removed (Codex `thread/revert`); refused while a turn runs
        // (Codex would interrupt it). Codex's `thread/reverted` tells every subscriber.
        routes.on(.revertThread) { (services, revert: RevertThread, context) in
            try await services.ensureLoaded(revert.threadId, policy: context.policy)
            try await services.hub.refuseWhileRunning(revert.threadId, "revert")
            try await services.housekeeping.revert(revert.threadId, before: revert.turnId)
            return .accepted(Accepted(threadId: revert.threadId))
        }
    }

    private static func setArchived(_ threadId: String, _ archived: Bool, on services: HubServices) async throws -> Accepted {
        try await services.codex.threadSetArchived(threadId: threadId, archived: archived, timeout: services.policy.codexTimeout)
        return Accepted(threadId: threadId)
    }
}
