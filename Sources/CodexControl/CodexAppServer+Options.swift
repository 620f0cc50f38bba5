import BridgeProtocol

extension CodexAppServer {
    /// How to start and talk to one `codex app-server` child (everything but the executable's path).
    public struct Options: Sendable {
        /// `KEY=VALUE` strings, each passed verbatim as `-c KEY=VALUE` (from `serve --codex-config`).
        public var configOverrides: [String]
        /// Variables added to (or, with a nil value, removed from) the inherited environment,
        /// e.g. `CODEX_HOME`, `OPENAI_API_KEY`.
        public var environment: [String: String?]
        /// The child's working directory; nil inherits ours.
        public var workingDirectory: String?
        /// `clientInfo.name` sent with `initialize`.
        public var clientName: String
        /// `clientInfo.version` sent with `initialize`.
        public var clientVersion: String
        /// How long `initialize` may take.
        public var handshakeTimeout: Duration
        /// The longest stdout line accepted (Codex sends whole diffs and command output in one line).
        public var maxLineLength: Int
        /// How many inbound messages may wait for the consumer before reading stdout pauses.
        public var inboundCapacity: Int
        /// After SIGTERM to the child's process group, how long to wait before SIGKILL.
        public var terminationGracePeriod: Duration
        /// When set, no child is started: this is a connection to a shared `codex app-server --listen
        /// unix://PATH` at this socket (WebSocket over the unix socket; see ``CodexAppServer/runConnected(to:)``).
        public var socketPath: String?
        /// Notifications delivered as ``CodexInbound/relayed(_:)`` (no params tree) when their params carry a
        /// string `threadId`: the high-volume deltas. Empty: every notification is `.notification`.
        public var relayedMethods: Set<String>

        /// The deltas Codex streams while a turn runs.
        public static let deltaMethods: Set<String> = [
            "item/agentMessage/delta", "item/reasoning/textDelta", "item/reasoning/summaryTextDelta",
            "item/commandExecution/outputDelta", "item/fileChange/outputDelta", "item/plan/delta",
        ]

        /// Creates options; every parameter has a working default.
        public init(
            configOverrides: [String] = [],
            environment: [String: String?] = [:],
            workingDirectory: String? = nil,
            clientName: String = "codex-bridge",
            clientVersion: String = "0.1.0",
            handshakeTimeout: Duration = .seconds(30),
            maxLineLength: Int = 64 * 1024 * 1024,
            inboundCapacity: Int = 4096,
            terminationGracePeriod: Duration = .seconds(5),
            socketPath: String? = nil,
            relayedMethods: Set<String> = Options.deltaMethods
        ) {
            self.configOverrides = configOverrides
            self.environment = environment
            self.workingDirectory = workingDirectory
            self.clientName = clientName
            self.clientVersion = clientVersion
            self.handshakeTimeout = handshakeTimeout
            self.maxLineLength = maxLineLength
            self.inboundCapacity = inboundCapacity
            self.terminationGracePeriod = terminationGracePeriod
            self.socketPath = socketPath
            self.relayedMethods = relayedMethods
        }

        /// Settings the bridge gives every child, before the configured overrides (a later `-c` wins): the agent
        /// may ask the person questions in Default mode too, since the bridge relays them (`inputRequest`), without
        /// a "under-development feature" warning in every thread for it; and the model gets Codex's `update_plan`
        /// tool (off by default in Codex 0.163), whose plans the phone shows as a live checklist.
        static let bridgeDefaults = [
            "features.default_mode_request_user_input=true", "suppress_unstable_features_warning=true", "tools.update_plan={enabled=true}",
        ]

        /// `app-server` followed by `-c KEY=VALUE` per bridge default and per override.
        var arguments: [String] {
            ["app-server"] + (Self.bridgeDefaults + configOverrides).flatMap { ["-c", $0] }
        }

        /// The `initialize` params. `experimentalApi`: `turn/start`'s `collaborationMode` (plan mode) and the
        /// streamed proposed plan (`item/plan/delta`) are experimental in Codex 0.163. `extensions.openai/form`: the
        /// bridge answers MCP forms (`mcpServer/elicitation/request`) from the phone, so Codex tells its MCP servers
        /// they may ask with OpenAI's form extension too.
        var initializeParams: JSONValue {
            [
                "clientInfo": ["name": .string(clientName), "version": .string(clientVersion)],
                "capabilities": ["experimentalApi": true, "extensions": ["openai/form": .object([:])]],
            ]
        }
    }
}
