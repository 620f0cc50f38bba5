/// `listTools {threadId?}` (observe) → `tools {mcpServers, hooks, problems?}`: why a tool is there or missing — the
/// MCP servers Codex knows for the thread (`mcpServerStatus/list`: each server's state, sign-in and tool names) and
/// the hooks that run around its turns (`hooks/list` for the thread's directory), with Codex's warnings and errors
/// about them.
public struct ListTools: RequestPayload {
    /// The thread whose MCP connections and directory count; absent: Codex's configuration alone.
    public var threadId: String?
    public init(threadId: String? = nil) { self.threadId = threadId }
    public var targetThreadId: String? { threadId }
}

/// The answer to `listTools`.
public struct ToolList: Codable, Sendable, Hashable {
    public var mcpServers: [McpServerSummary]
    public var hooks: [HookSummary]
    /// Codex's warnings and errors about hooks (a file it could not read, an untrusted hook), as it wrote them.
    public var problems: [String]?
    public init(mcpServers: [McpServerSummary], hooks: [HookSummary], problems: [String]? = nil) {
        self.mcpServers = mcpServers
        self.hooks = hooks
        self.problems = problems
    }
}

/// One MCP server as Codex reports it.
public struct McpServerSummary: Codable, Sendable, Hashable {
    public var name: String
    /// The server's own title, when it gave one.
    public var title: String?
    /// `connected`, `starting`, `failed`, `authenticationRequired`, `disabled`, …; absent when Codex cannot say.
    public var status: String?
    /// `notLoggedIn`, `oAuth`, `bearerToken`, `unsupported`, `unknown`.
    public var auth: String?
    /// Its tools' names, sorted (at most 200).
    public var tools: [String]
    public init(name: String, title: String? = nil, status: String? = nil, auth: String? = nil, tools: [String] = []) {
        self.name = name
        self.title = title
        self.status = status
        self.auth = auth
        self.tools = tools
    }
}

/// One hook as Codex reports it.
public struct HookSummary: Codable, Sendable, Hashable {
    /// When it runs: `preToolUse`, `postToolUse`, `sessionStart`, `stop`, ….
    public var event: String
    public var enabled: Bool
    /// Which tools it applies to, when it says.
    public var matcher: String?
    /// `command`, `mcpTool`, `prompt` or `agent`; with the command it runs, for a command hook.
    public var handler: String?
    public var command: String?
    /// `trusted`, `untrusted`, … as Codex decides it.
    public var trust: String?
    /// The file it comes from.
    public var source: String?
    public init(
        event: String, enabled: Bool, matcher: String? = nil, handler: String? = nil, command: String? = nil, trust: String? = nil,
        source: String? = nil
    ) {
        self.event = event
        self.enabled = enabled
        self.matcher = matcher
        self.handler = handler
        self.command = command
        self.trust = trust
        self.source = source
    }
}
