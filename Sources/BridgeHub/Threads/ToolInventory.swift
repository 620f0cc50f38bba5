import BridgeProtocol
import CodexControl

/// `listTools`: the MCP servers (`mcpServerStatus/list`, tools and sign-in only) and hooks (`hooks/list`) Codex
/// has for a thread, summarised and bounded: what the agent wrote into a configuration or a server advertises is
/// untrusted text, cut to size here and shown as text by clients.
struct ToolInventory: Sendable {
    let codex: any CodexRequesting
    let timeout: Duration

    /// Most servers, tools per server, hooks and problems listed; longest text kept.
    static let maxServers = 100
    static let maxTools = 200
    static let maxHooks = 200
    static let maxProblems = 20
    static let maxText = 300

    func list(threadId: String?, cwd: String?) async throws -> ToolList {
        var serverParams: [String: JSONValue] = ["detail": .string("toolsAndAuthOnly"), "limit": .number(Double(Self.maxServers))]
        if let threadId { serverParams["threadId"] = .string(threadId) }
        let hookParams: JSONValue = .object(["cwds": .array(cwd.map { [.string($0)] } ?? [])])
        async let servers = codex.request("mcpServerStatus/list", params: .object(serverParams), timeout: timeout)
        async let hooks = codex.request("hooks/list", params: hookParams, timeout: timeout)
        let entries = (try await hooks)["data"]?.arrayValue ?? []
        return ToolList(
            mcpServers: Self.servers(try await servers),
            hooks: entries.flatMap { $0["hooks"]?.arrayValue ?? [] }.prefix(Self.maxHooks).map(Self.hook),
            problems: Self.problems(entries))
    }

    static func servers(_ result: JSONValue) -> [McpServerSummary] {
        (result["data"]?.arrayValue ?? []).prefix(maxServers).compactMap { server in
            guard let name = server["name"]?.stringValue else { return nil }
            let tools = (server["tools"]?.objectValue?.keys.sorted() ?? []).prefix(maxTools).map(cut)
            return McpServerSummary(
                name: cut(name), title: server["serverInfo"]?["title"]?.stringValue.map(cut), status: server["runtimeStatus"]?.stringValue,
                auth: server["authStatus"]?.stringValue, tools: Array(tools))
        }
    }

    static func hook(_ hook: JSONValue) -> HookSummary {
        HookSummary(
            event: cut(hook["eventName"]?.stringValue ?? "unknown"), enabled: hook["enabled"]?.boolValue ?? false,
            matcher: hook["matcher"]?.stringValue.map(cut), handler: hook["handlerType"]?.stringValue.map(cut),
            command: hook["command"]?.stringValue.map(cut), trust: hook["trustStatus"]?.stringValue.map(cut),
            source: hook["sourcePath"]?.stringValue.map(cut))
    }

    static func problems(_ entries: [JSONValue]) -> [String]? {
        var problems: [String] = []
        for entry in entries {
            for error in entry["errors"]?.arrayValue ?? [] {
                guard let message = error["message"]?.stringValue else { continue }
                if let path = error["path"]?.stringValue { problems.append(path + ": " + message) } else { problems.append(message) }
            }
            problems += (entry["warnings"]?.arrayValue ?? []).compactMap(\.stringValue)
        }
        return problems.isEmpty ? nil : problems.prefix(maxProblems).map(cut)
    }

    static func cut(_ text: String) -> String { String(text.prefix(maxText)) }
}
