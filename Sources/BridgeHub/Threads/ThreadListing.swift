import BridgeGit
import BridgeProtocol
import CodexControl

/// `listThreads` and `searchThreads`: Codex's threads as the bridge lists them, only those inside the roots, each
/// with its worktree, goal and collaboration mode.
struct ThreadListing: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.listThreads) { (services, list: ListThreads, _) in .threads(try await Self.list(list, on: services)) }
        routes.on(.searchThreads) { (services, search: SearchThreads, _) in .threads(try await Self.search(search, on: services)) }
    }

    static func list(_ list: ListThreads, on services: HubServices) async throws -> ThreadList {
        if let limit = list.limit, !(1...500).contains(limit) {
            throw HubError(.badRequest, "limit must be between 1 and 500")
        }
        let result = try await services.codex.threadList(
            limit: list.limit ?? 50, cursor: list.cursor, archived: list.archived,
            sourceKinds: codexAllThreadSourceKinds + SubAgentTracker.listedSourceKinds(includeInternal: list.includeInternal == true),
            timeout: services.policy.codexTimeout)
        return ThreadList(
            threads: await summaries(of: result["data"]?.arrayValue ?? [], on: services), nextCursor: result["nextCursor"]?.stringValue)
    }

    /// Codex's thread objects as the bridge lists them (`listThreads`, `searchThreads`): those inside the roots,
    /// with their worktree, goal and collaboration mode.
    private static func summaries(of data: [JSONValue], on services: HubServices) async -> [ThreadSummary] {
        let worktrees = await GitService.worktreeFacts(of: data.map { $0["cwd"]?.stringValue }, roots: services.gate.roots)
        let threads = zip(data, worktrees).compactMap { thread, worktree -> ThreadSummary? in
            guard let id = thread["id"]?.stringValue else { return nil }
            // Threads outside this bridge's roots are not shown (the gate refuses them anyway).
            guard services.gate.shows(cwd: thread["cwd"]?.stringValue) else { return nil }
            let status = thread["status"]?["type"]?.stringValue ?? thread["status"]?.stringValue
            let text = { (key: String) in thread[key]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
            return ThreadSummary(
                threadId: id, cwd: thread["cwd"]?.stringValue, preview: thread["preview"]?.stringValue,
                status: status, updatedAt: thread["updatedAt"]?.numberValue, source: source(of: thread), name: text("name"),
                model: text("model"), reasoningEffort: text("reasoningEffort"), parentThreadId: text("parentThreadId"),
                agentNickname: text("agentNickname"), agentRole: text("agentRole"),
                branch: worktree?.branch ?? thread["gitInfo"]?["branch"]?.stringValue,
                worktreeOf: worktree?.worktreeOf
            )
        }
        let goals = await services.goals.goals(of: threads.map(\.threadId))
        let snippets = Dictionary(
            data.compactMap { thread in thread["id"]?.stringValue.map { ($0, thread[ThreadHousekeeping.snippetKey]?.stringValue) } },
            uniquingKeysWith: { first, _ in first })
        return threads.map { summary in
            var summary = summary
            summary.goal = goals[summary.threadId]
            summary.collaborationMode = services.plans.rememberedMode(of: summary.threadId)
            summary.snippet = snippets[summary.threadId] ?? nil
            return summary
        }
    }

    /// Which client started a thread, as Codex reports it: `cli`, `vscode`, `exec`, `appServer`, `subAgent`, or a
    /// custom name.
    static func source(of thread: JSONValue) -> String? {
        if let name = thread["source"]?.stringValue { return name }
        guard let object = thread["source"]?.objectValue else { return nil }
        return object["custom"]?.stringValue ?? object.keys.sorted().first
    }

    static func search(_ search: SearchThreads, on services: HubServices) async throws -> ThreadList {
        let found = try await services.housekeeping.search(search)
        return ThreadList(threads: await summaries(of: found.threads, on: services), nextCursor: found.nextCursor)
    }
}
