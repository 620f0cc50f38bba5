import BridgeProtocol

/// A notification from Codex, its kind read once from the method where it enters (``CodexInbound``), so what
/// handles it switches on ``Kind`` instead of comparing method strings.
public struct CodexNotification: Sendable, Hashable {
    /// What Codex says happened; nil for a method this bridge does not know (a newer Codex's).
    public let kind: Kind?
    /// The method as Codex wrote it (`turn/started`, ...): what the bridge sends on as the event's `type`.
    public let method: String
    /// The params, parsed.
    public let params: JSONValue
    /// The params exactly as Codex wrote them (valid JSON text), to relay without re-encoding.
    public let paramsJSON: String?

    /// A notification of `method`, its kind looked up.
    public init(method: String, params: JSONValue, paramsJSON: String? = nil) {
        self.init(kind: Kind(method: method), method: method, params: params, paramsJSON: paramsJSON)
    }

    init(kind: Kind?, method: String, params: JSONValue, paramsJSON: String?) {
        self.kind = kind
        self.method = method
        self.params = params
        self.paramsJSON = paramsJSON
    }
}

extension CodexNotification {
    /// Every notification method of `codex app-server` 0.160–0.163 (`generate-json-schema --experimental`,
    /// ServerNotification.json; 0.163 has all of the earlier versions' and `thread/readState/changed`,
    /// `thread/prediction/updated` besides). A test checks the installed Codex's schema against this list.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case error = "error"
        case threadStarted = "thread/started"
        case threadStatusChanged = "thread/status/changed"
        case threadReadStateChanged = "thread/readState/changed"
        case threadArchived = "thread/archived"
        case threadDeleted = "thread/deleted"
        case threadUnarchived = "thread/unarchived"
        case threadClosed = "thread/closed"
        case threadReverted = "thread/reverted"
        case skillsChanged = "skills/changed"
        case threadNameUpdated = "thread/name/updated"
        case threadAttachmentUpdated = "thread/attachment/updated"
        case threadGoalUpdated = "thread/goal/updated"
        case threadPredictionUpdated = "thread/prediction/updated"
        case threadGoalCleared = "thread/goal/cleared"
        case threadQueueChanged = "thread/queue/changed"
        case projectChanged = "project/changed"
        case threadProjectUpdated = "thread/project/updated"
        case threadEnvironmentConnected = "thread/environment/connected"
        case threadEnvironmentDisconnected = "thread/environment/disconnected"
        case threadSettingsUpdated = "thread/settings/updated"
        case threadTokenUsageUpdated = "thread/tokenUsage/updated"
        case turnStarted = "turn/started"
        case hookStarted = "hook/started"
        case turnCompleted = "turn/completed"
        case hookCompleted = "hook/completed"
        case turnDiffUpdated = "turn/diff/updated"
        case turnPlanUpdated = "turn/plan/updated"
        case itemStarted = "item/started"
        case itemAutoApprovalReviewStarted = "item/autoApprovalReview/started"
        case itemAutoApprovalReviewCompleted = "item/autoApprovalReview/completed"
        case autoApprovalReviewStrictReviewRequired = "autoApprovalReview/strictReviewRequired"
        case itemCompleted = "item/completed"
        case itemAgentMessageDelta = "item/agentMessage/delta"
        case itemPlanDelta = "item/plan/delta"
        case commandExecOutputDelta = "command/exec/outputDelta"
        case processOutputDelta = "process/outputDelta"
        case processExited = "process/exited"
        case itemCommandExecutionOutputDelta = "item/commandExecution/outputDelta"
        case itemCommandExecutionTerminalInteraction = "item/commandExecution/terminalInteraction"
        case itemFileChangeOutputDelta = "item/fileChange/outputDelta"
        case itemFileChangePatchUpdated = "item/fileChange/patchUpdated"
        case serverRequestResolved = "serverRequest/resolved"
        case itemMcpToolCallProgress = "item/mcpToolCall/progress"
        case mcpServerOauthLoginCompleted = "mcpServer/oauthLogin/completed"
        case mcpServerStartupStatusUpdated = "mcpServer/startupStatus/updated"
        case mcpServerEventStreamNotification = "mcpServer/event/stream/notification"
        case accountUpdated = "account/updated"
        case accountGatewayOAuthChanged = "account/gatewayOAuth/changed"
        case accountRateLimitsUpdated = "account/rateLimits/updated"
        case appListUpdated = "app/list/updated"
        case remoteControlStatusChanged = "remoteControl/status/changed"
        case externalAgentConfigImportProgress = "externalAgentConfig/import/progress"
        case externalAgentConfigImportCompleted = "externalAgentConfig/import/completed"
        case fsChanged = "fs/changed"
        case itemReasoningSummaryTextDelta = "item/reasoning/summaryTextDelta"
        case itemReasoningSummaryPartAdded = "item/reasoning/summaryPartAdded"
        case itemReasoningTextDelta = "item/reasoning/textDelta"
        case threadCompacted = "thread/compacted"
        case modelRerouted = "model/rerouted"
        case modelVerification = "model/verification"
        case modelProviderAuthRecoveryStarted = "modelProvider/authRecoveryStarted"
        case modelProviderAuthRecoveryCompleted = "modelProvider/authRecoveryCompleted"
        case turnModerationMetadata = "turn/moderationMetadata"
        case modelSafetyBufferingUpdated = "model/safetyBuffering/updated"
        case warning = "warning"
        case guardianWarning = "guardianWarning"
        case deprecationNotice = "deprecationNotice"
        case configWarning = "configWarning"
        case fuzzyFileSearchSessionUpdated = "fuzzyFileSearch/sessionUpdated"
        case fuzzyFileSearchSessionCompleted = "fuzzyFileSearch/sessionCompleted"
        case threadRealtimeStarted = "thread/realtime/started"
        case threadRealtimeItemAdded = "thread/realtime/itemAdded"
        case threadRealtimeItemStarted = "thread/realtime/item/started"
        case threadRealtimeItemTranscriptDelta = "thread/realtime/item/transcript/delta"
        case threadRealtimeItemCompleted = "thread/realtime/item/completed"
        case threadRealtimeTranscriptDelta = "thread/realtime/transcript/delta"
        case threadRealtimeTranscriptDone = "thread/realtime/transcript/done"
        case threadRealtimeOutputAudioDelta = "thread/realtime/outputAudio/delta"
        case threadRealtimeSdp = "thread/realtime/sdp"
        case threadRealtimeError = "thread/realtime/error"
        case threadRealtimeClosed = "thread/realtime/closed"
        case windowsWorldWritableWarning = "windows/worldWritableWarning"
        case windowsSandboxSetupCompleted = "windowsSandbox/setupCompleted"
        case accountLoginCompleted = "account/login/completed"

        /// The kind of `method`, nil when it is none of these.
        public init?(method: String) {
            guard let kind = Self.byMethod[method] else { return nil }
            self = kind
        }

        /// A hash lookup (the synthesized `init(rawValue:)` compares the cases one by one).
        private static let byMethod: [String: Kind] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })

        /// The method Codex writes.
        public var method: String { rawValue }
    }
}
