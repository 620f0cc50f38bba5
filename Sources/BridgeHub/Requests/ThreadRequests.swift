import BridgeGit
import BridgeProtocol
import CodexControl
import Foundation

/// The requests on threads and turns the hub answers itself: reading threads, starting, steering and
/// interrupting them, subscriptions, settings, approvals, and what a thread's directory holds
/// (files, directories, skills, models, usage). Listing, housekeeping, forks, reviews, goals,
/// the queue and questions register their own.
struct ThreadRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.startThread) { (hub, start: StartThread, context) in
            .threadStarted(
                try await hub.startThread(start, cwd: context.cwd ?? start.cwd, policy: context.policy, session: context.session))
        }
        routes.on(.sendMessage) { (hub, message: SendMessage, context) in
            .accepted(try await hub.sendMessage(message, policy: context.policy, session: context.session))
        }
        routes.on(.interrupt) { (hub, ref: ThreadRef, _) in
            guard let turnId = hub.runningTurn(of: ref.threadId) else {
                throw HubError(.conflict, "no turn is running on thread \(ref.threadId)")
            }
            try await hub.codex.turnInterrupt(threadId: ref.threadId, turnId: turnId, timeout: hub.policy.codexTimeout)
            return .accepted(Accepted(threadId: ref.threadId, turnId: turnId))
        }
        routes.on(.subscribe) { (hub, subscription: Subscribe, context) in
            if subscription.threadId != "*" { try hub.checkSubscriptionCount(context.session) }
            return .subscribed(await hub.subscribeResuming(context.session, to: subscription.threadId, afterSeq: subscription.afterSeq))
        }
        routes.on(.unsubscribe) { (hub, ref: ThreadRef, context) in
            hub.unsubscribe(context.session, from: ref.threadId)
            await hub.remember(context.session, subscribedTo: ref.threadId, false)
            return .unsubscribed(SubscriptionChanged(threadId: ref.threadId))
        }
        routes.on(.readThread) { (hub, read: ReadThread, _) in .thread(try await ThreadPages(hub: hub).read(read)) }
        routes.on(.readTurns) { (hub, read: ReadTurns, _) in .turns(try await ThreadPages(hub: hub).read(read)) }
        routes.on(.getDiff) { (hub, ref: ThreadRef, context) in
            // git's view of the thread's directory (tracked and new files; see ``WorkspaceDiff``), else the last diff
            // Codex reported for the thread (a directory outside any repository).
            if let cwd = context.cwd, let diff = try await hub.git.diff(in: cwd) {
                return .diff(ThreadDiff(threadId: ref.threadId, diff: diff))
            }
            return .diff(ThreadDiff(threadId: ref.threadId, diff: hub.book[ref.threadId]?.lastDiff ?? ""))
        }
        routes.on(.updateThreadSettings) { (hub, update: UpdateThreadSettings, context) in
            .accepted(try await hub.updateSettings(update, policy: context.policy))
        }
        routes.on(.listPermissionProfiles) { (hub, _: ListPermissionProfiles, context) in
            let profiles = PermissionProfiles(codex: hub.codex, timeout: hub.policy.codexTimeout)
            return .permissionProfiles(try await profiles.list(cwd: context.cwd, gate: hub.gate))
        }
        routes.on(.approve) { (hub, approve: Approve, context) in
            let name = await hub.deviceName(context.session.principal.deviceId)
            let answerer = ApprovalAnswerer.device(context.session.principal.deviceId)
            return .accepted(try hub.resolveApproval(approve.approvalId, approve.decision, by: answerer, deviceName: name))
        }
        routes.on(.listDirectory) { (hub, _: ListDirectory, context) in
            .directory(try await DirectoryLister().list(context.cwd ?? "/", roots: hub.gate.roots))
        }
        routes.on(.readFile) { (hub, read: ReadFile, context) in
            .file(try await FileReader().read(read.path, cwd: context.directory, roots: hub.gate.roots))
        }
        routes.on(.searchFiles) { (hub, search: SearchFiles, context) in
            .files(
                try await FileSearch(codex: hub.codex, timeout: hub.policy.codexTimeout, roots: hub.gate.roots).search(
                    search, cwd: context.directory))
        }
        routes.on(.listSkills) { (hub, list: ListSkills, context) in
            .skills(try await SkillCatalog(codex: hub.codex, timeout: hub.policy.codexTimeout).list(list, cwd: context.directory))
        }
        routes.on(.listTools) { (hub, list: ListTools, context) in
            .tools(
                try await ToolInventory(codex: hub.codex, timeout: hub.policy.codexTimeout).list(threadId: list.threadId, cwd: context.cwd))
        }
        routes.on(.listModels) { (hub, _: ListModels, _) in .models(ModelList(models: try await hub.models.models())) }
        // Codex's own refusal (no ChatGPT login, say) is passed on as `codex_error` with its message.
        routes.on(.usage) { (hub, _: UsageRequest, _) in
            let result = try await hub.codex.accountRateLimits(timeout: hub.policy.codexTimeout)
            return .usage(Usage(rateLimits: result["rateLimits"] ?? result))
        }
        routes.on(.accountUsage) { (hub, _: AccountUsageRequest, _) in
            .accountUsage(try await AccountUsageReader(codex: hub.codex, timeout: hub.policy.codexTimeout).read())
        }
        routes.on(.listCollaborationModes) { (hub, _: ListCollaborationModes, _) in
            .collaborationModes(try await CollaborationModes(codex: hub.codex, timeout: hub.policy.codexTimeout).list())
        }
    }
}
