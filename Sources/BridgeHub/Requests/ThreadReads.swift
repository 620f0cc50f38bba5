import BridgeGit
import BridgeProtocol
import CodexControl
import Foundation

/// The requests on a thread that need none of the hub's state but a fact or two through its port: reading it
/// (ThreadPages), interrupting its turn, its settings, its diff, and what its directory and Codex offer (files, directories, skills, tools, models,
/// permission profiles, usage). They run beside the hub.
struct ThreadReads: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.interrupt) { (services, ref: ThreadRef, _) in
            guard let turnId = await services.hub.runningTurn(of: ref.threadId) else {
                throw HubError(.conflict, "no turn is running on thread \(ref.threadId)")
            }
            try await services.codex.turnInterrupt(threadId: ref.threadId, turnId: turnId, timeout: services.policy.codexTimeout)
            return .accepted(Accepted(threadId: ref.threadId, turnId: turnId))
        }
        routes.on(.getDiff) { (services, ref: ThreadRef, context) in
            // git's view of the thread's directory (tracked and new files; see ``WorkspaceDiff``), else the last diff
            // Codex reported for the thread (a directory outside any repository).
            if let cwd = context.cwd, let diff = try await services.git.diff(in: cwd) {
                return .diff(ThreadDiff(threadId: ref.threadId, diff: diff))
            }
            return .diff(ThreadDiff(threadId: ref.threadId, diff: await services.hub.lastDiff(of: ref.threadId) ?? ""))
        }
        // The gate admitted `context.policy` (the thread's, with the sandbox of a `permissionProfile` when one was
        // named); a new sandbox is remembered, so the thread's next turns run with it.
        routes.on(.updateThreadSettings) { (services, update: UpdateThreadSettings, context) in
            try await services.models.check(update.model, effort: update.effort)
            try await services.ensureLoaded(update.threadId, policy: context.policy)
            try await services.housekeeping.updateSettings(update, sandbox: update.permissionProfile == nil ? nil : context.policy.sandbox)
            if await services.hub.keepPolicy(context.policy, of: update.threadId) {
                await services.threadPolicies.remember(context.policy, of: update.threadId)
            }
            return .accepted(Accepted(threadId: update.threadId))
        }
        routes.on(.readThread) { (services, read: ReadThread, _) in .thread(try await ThreadPages(services: services).read(read)) }
        routes.on(.readTurns) { (services, read: ReadTurns, _) in .turns(try await ThreadPages(services: services).read(read)) }
        routes.on(.listPermissionProfiles) { (services, _: ListPermissionProfiles, context) in
            let profiles = PermissionProfiles(codex: services.codex, timeout: services.policy.codexTimeout)
            return .permissionProfiles(try await profiles.list(cwd: context.cwd, gate: services.gate))
        }
        routes.on(.listDirectory) { (services, _: ListDirectory, context) in
            .directory(try await DirectoryLister().list(context.cwd ?? "/", roots: services.gate.roots))
        }
        routes.on(.readFile) { (services, read: ReadFile, context) in
            .file(try await FileReader().read(read.path, cwd: context.directory, roots: services.gate.roots))
        }
        routes.on(.searchFiles) { (services, search: SearchFiles, context) in
            .files(
                try await FileSearch(codex: services.codex, timeout: services.policy.codexTimeout, roots: services.gate.roots).search(
                    search, cwd: context.directory))
        }
        routes.on(.listSkills) { (services, list: ListSkills, context) in
            .skills(try await SkillCatalog(codex: services.codex, timeout: services.policy.codexTimeout).list(list, cwd: context.directory))
        }
        routes.on(.listTools) { (services, list: ListTools, context) in
            .tools(
                try await ToolInventory(codex: services.codex, timeout: services.policy.codexTimeout).list(
                    threadId: list.threadId, cwd: context.cwd))
        }
        routes.on(.listModels) { (services, _: ListModels, _) in .models(ModelList(models: try await services.models.models())) }
        // Codex's own refusal (no ChatGPT login, say) is passed on as `codex_error` with its message.
        routes.on(.usage) { (services, _: UsageRequest, _) in
            let result = try await services.codex.accountRateLimits(timeout: services.policy.codexTimeout)
            return .usage(Usage(rateLimits: result["rateLimits"] ?? result))
        }
        routes.on(.accountUsage) { (services, _: AccountUsageRequest, _) in
            .accountUsage(try await AccountUsageReader(codex: services.codex, timeout: services.policy.codexTimeout).read())
        }
        routes.on(.listCollaborationModes) { (services, _: ListCollaborationModes, _) in
            .collaborationModes(try await CollaborationModes(codex: services.codex, timeout: services.policy.codexTimeout).list())
        }
    }
}
