import CodexControl

/// What the hub does with each kind of Codex notification: the one table that says it (a switch over every
/// ``CodexNotification/Kind``, so a kind Codex adds is a compile error until it is declared here).
///
/// - `journaled`: numbered, written to the journal, fanned out and replayed (a kind that names no thread is
///   dropped, but for the account's rate limits, published under `*`).
/// - `live`: to the voice service as it comes, which sends it on the phone's live stream; never numbered, journaled
///   or replayed (voice audio).
/// - `internal`: for the services beside the hub only (commands' output); the rest of these name no thread and
///   concern no phone (the app-server's own account, file watches, Windows sandbox): nothing is done.
struct EventDescriptor: Sendable, Hashable {
    enum Disposition: Sendable, Hashable {
        case journaled, live, `internal`
    }

    let disposition: Disposition
    /// The book, a desk, the push signals, the commit-message writer or the shared follower looks into it: it
    /// takes the full path (params parsed), never the relay's as-is path for deltas.
    let observed: Bool

    private static let journaled = EventDescriptor(disposition: .journaled, observed: false)
    private static let observedJournaled = EventDescriptor(disposition: .journaled, observed: true)

    /// The descriptor of `kind`; a method this bridge does not know is journaled (when it names a thread) and
    /// observed by nobody, as every notification was before kinds.
    static func of(_ kind: CodexNotification.Kind?) -> EventDescriptor {
        guard let kind else { return journaled }
        switch kind {
        case .threadRealtimeOutputAudioDelta:
            return EventDescriptor(disposition: .live, observed: false)
        // The voice service's (Voice/): it journals what a thread keeps of a voice session (bridge/voice,
        // bridge/voiceTranscript), not Codex's realtime notifications as they are.
        case .threadRealtimeStarted, .threadRealtimeItemAdded, .threadRealtimeItemStarted, .threadRealtimeItemTranscriptDelta,
            .threadRealtimeItemCompleted, .threadRealtimeTranscriptDelta, .threadRealtimeTranscriptDone, .threadRealtimeSdp,
            .threadRealtimeError, .threadRealtimeClosed:
            return EventDescriptor(disposition: .internal, observed: true)
        case .accountGatewayOAuthChanged, .accountLoginCompleted, .accountUpdated, .appListUpdated,
            .commandExecOutputDelta, .configWarning, .deprecationNotice, .externalAgentConfigImportCompleted,
            .externalAgentConfigImportProgress, .fsChanged, .fuzzyFileSearchSessionCompleted,
            .fuzzyFileSearchSessionUpdated, .mcpServerEventStreamNotification, .processExited, .processOutputDelta,
            .projectChanged, .remoteControlStatusChanged, .skillsChanged, .windowsSandboxSetupCompleted,
            .windowsWorldWritableWarning:
            return EventDescriptor(disposition: .internal, observed: kind == .commandExecOutputDelta)
        case .accountRateLimitsUpdated, .error, .itemAutoApprovalReviewCompleted, .itemCompleted, .itemStarted,
            .serverRequestResolved, .threadGoalCleared, .threadGoalUpdated, .threadNameUpdated, .threadSettingsUpdated,
            .threadStarted, .threadStatusChanged, .threadTokenUsageUpdated, .turnCompleted, .turnDiffUpdated,
            .turnPlanUpdated, .turnStarted:
            return observedJournaled
        case .threadReadStateChanged, .threadArchived, .threadDeleted, .threadUnarchived, .threadClosed,
            .threadReverted, .threadAttachmentUpdated, .threadPredictionUpdated, .threadQueueChanged,
            .threadProjectUpdated, .threadEnvironmentConnected, .threadEnvironmentDisconnected, .hookStarted,
            .hookCompleted, .itemAutoApprovalReviewStarted, .autoApprovalReviewStrictReviewRequired,
            .itemAgentMessageDelta, .itemPlanDelta, .itemCommandExecutionOutputDelta,
            .itemCommandExecutionTerminalInteraction, .itemFileChangeOutputDelta, .itemFileChangePatchUpdated,
            .itemMcpToolCallProgress, .mcpServerOauthLoginCompleted, .mcpServerStartupStatusUpdated,
            .itemReasoningSummaryTextDelta, .itemReasoningSummaryPartAdded, .itemReasoningTextDelta, .threadCompacted,
            .modelRerouted, .modelVerification, .modelProviderAuthRecoveryStarted,
            .modelProviderAuthRecoveryCompleted, .turnModerationMetadata, .modelSafetyBufferingUpdated, .warning,
            .guardianWarning:
            return journaled
        }
    }
}
