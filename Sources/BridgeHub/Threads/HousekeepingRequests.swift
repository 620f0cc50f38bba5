import BridgeProtocol
import CodexControl
import Foundation

/// A thread's housekeeping: renaming, archiving, compacting, deleting and reverting it (``ThreadHousekeeping``
/// speaks to Codex). Compacting, deleting and reverting wait until no turn runs; compacting and reverting resume
/// the thread first, like any turn.
struct HousekeepingRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.renameThread) { (hub, rename: RenameThread, _) in
            let name = rename.name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...200).contains(name.count), !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw HubError(.badRequest, "name must be 1 to 200 characters without control characters")
            }
            try await hub.codex.threadNameSet(threadId: rename.threadId, name: name, timeout: hub.policy.codexTimeout)
            return .accepted(Accepted(threadId: rename.threadId))
        }
        routes.on(.archiveThread) { (hub, ref: ThreadRef, _) in .accepted(try await Self.setArchived(ref.threadId, true, on: hub)) }
        routes.on(.unarchiveThread) { (hub, ref: ThreadRef, _) in .accepted(try await Self.setArchived(ref.threadId, false, on: hub)) }
        routes.on(.compactThread) { (hub, ref: ThreadRef, context) in
            try hub.refuseWhileShuttingDown()
            try await hub.ensureLoaded(ref.threadId, policy: context.policy)
            try hub.book.refuseWhileRunning(ref.threadId, "compact")
            try await hub.housekeeping.compact(ref.threadId)
            return .accepted(Accepted(threadId: ref.threadId))
        }
        routes.on(.deleteThread) { (hub, ref: ThreadRef, _) in
            try hub.book.refuseWhileRunning(ref.threadId, "delete")
            try await hub.housekeeping.delete(ref.threadId)
            return .accepted(Accepted(threadId: ref.threadId))
        }
        // The thread's history from `turnId` on is removed (Codex `thread/revert`); refused while a turn runs
        // (Codex would interrupt it). Codex's `thread/reverted` tells every subscriber.
        routes.on(.revertThread) { (hub, revert: RevertThread, context) in
            try await hub.ensureLoaded(revert.threadId, policy: context.policy)
            try hub.book.refuseWhileRunning(revert.threadId, "revert")
            try await hub.housekeeping.revert(revert.threadId, before: revert.turnId)
            return .accepted(Accepted(threadId: revert.threadId))
        }
    }

    private static func setArchived(_ threadId: String, _ archived: Bool, on hub: isolated ThreadHub) async throws -> Accepted {
        try await hub.codex.threadSetArchived(threadId: threadId, archived: archived, timeout: hub.policy.codexTimeout)
        return Accepted(threadId: threadId)
    }
}
