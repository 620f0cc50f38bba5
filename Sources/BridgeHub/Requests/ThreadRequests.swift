import BridgeProtocol
import CodexControl
import Foundation

/// The requests on threads and turns the hub answers itself: reading threads, starting, steering and
/// interrupting them, subscriptions, settings, approvals and questions, and what a thread's directory holds
/// (files, directories, skills, models, usage). Listing, housekeeping, forks, reviews and goals register their own.
struct ThreadRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.startThread) { (hub, start: StartThread, context) in
            .threadStarted(
                try await hub.startThread(start, cwd: context.cwd ?? start.cwd, policy: context.policy, session: context.session))
        }
        routes.on(.sendMessage) { (hub, message: SendMessage, context) in
            .accepted(try await hub.sendMessage(message, policy: context.policy, session: context.session))
        }
        routes.on(.interrupt) { (hub, ref: ThreadRef, _) in .accepted(try await hub.interrupt(ref.threadId)) }
        routes.on(.cancelQueued) { (hub, cancel: CancelQueued, _) in .accepted(try hub.cancelQueuedMessage(cancel)) }
        routes.on(.reorderQueued) { (hub, reorder: ReorderQueued, _) in .accepted(try hub.reorderQueuedMessages(reorder)) }
        routes.on(.editQueued) { (hub, edit: EditQueued, _) in .accepted(try hub.editQueuedMessage(edit)) }
        routes.on(.subscribe) { (hub, subscription: Subscribe, context) in
            .subscribed(try await hub.subscribe(context.session, to: subscription))
        }
        routes.on(.unsubscribe) { (hub, ref: ThreadRef, context) in
            .unsubscribed(await hub.unsubscribe(context.session, fromThread: ref.threadId))
        }
        routes.on(.readThread) { (hub, read: ReadThread, _) in .thread(try await ThreadPages(hub: hub).read(read)) }
        routes.on(.readTurns) { (hub, read: ReadTurns, _) in .turns(try await ThreadPages(hub: hub).read(read)) }
        routes.on(.getDiff) { (hub, ref: ThreadRef, context) in
            .diff(ThreadDiff(threadId: ref.threadId, diff: try await hub.diff(of: ref.threadId, cwd: context.cwd)))
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
        routes.on(.answerInput) { (hub, answer: AnswerInput, context) in
            let name = await hub.deviceName(context.session.principal.deviceId)
            return .accepted(try hub.answerInputRequest(answer, session: context.session, deviceName: name))
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
