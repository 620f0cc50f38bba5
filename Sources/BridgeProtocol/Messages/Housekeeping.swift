/// `searchThreads {query, limit?, cursor?, archived?}`: Codex's full-text thread search (prompts, answers, names);
/// answered `threads` like `listThreads`, each thread with the matching `snippet`.
public struct SearchThreads: RequestPayload {
    /// What to look for (1 to 200 characters).
    public var query: String
    public var limit: Int?
    public var cursor: String?
    /// With `true` only archived threads, else only the others.
    public var archived: Bool?
    public init(query: String, limit: Int? = nil, cursor: String? = nil, archived: Bool? = nil) {
        self.query = query
        self.limit = limit
        self.cursor = cursor
        self.archived = archived
    }
}

/// Who answers a thread's approval requests: a person (`user`, the default) or Codex's automatic reviewer
/// (`auto_review`), whose decisions reach subscribers as `item/autoApprovalReview/*` events.
public enum ApprovalsReviewer: String, Codable, Sendable, Hashable, CaseIterable {
    case user
    case autoReview = "auto_review"
}

/// `approveDeniedAction {threadId, reviewId}`: a person overrides a denial of Codex's automatic reviewer
/// (`item/autoApprovalReview/completed` with `review.status` `denied`; Codex `thread/approveGuardianDeniedAction`).
public struct ApproveDeniedAction: ThreadPayload {
    public var threadId: String
    /// The denied review's `reviewId`.
    public var reviewId: String
    public init(threadId: String, reviewId: String) {
        self.threadId = threadId
        self.reviewId = reviewId
    }
}

/// `updateThreadSettings {threadId, model?, effort?, approvalsReviewer?, permissionProfile?}`: Codex's
/// `thread/settings/update` for the thread's next turns. `permissionProfile` is one of Codex's built-in profiles
/// (`:read-only`, `:workspace`, `:danger-full-access`), allowed only when the bridge allows its sandbox.
public struct UpdateThreadSettings: ThreadPayload {
    public var threadId: String
    public var model: String?
    /// A reasoning effort the model supports (`listModels`).
    public var effort: String?
    public var approvalsReviewer: ApprovalsReviewer?
    public var permissionProfile: String?
    public init(
        threadId: String, model: String? = nil, effort: String? = nil, approvalsReviewer: ApprovalsReviewer? = nil,
        permissionProfile: String? = nil
    ) {
        self.threadId = threadId
        self.model = model
        self.effort = effort
        self.approvalsReviewer = approvalsReviewer
        self.permissionProfile = permissionProfile
    }
}

/// `revertThread {threadId, turnId}`: Codex's `thread/revert` — the thread's history keeps only the turns before
/// `turnId`; that turn and every later one are gone from what Codex remembers, on every device. Files the turns
/// changed are not reverted.
public struct RevertThread: ThreadPayload {
    public var threadId: String
    /// The first turn to remove (with every later one).
    public var turnId: String
    public init(threadId: String, turnId: String) {
        self.threadId = threadId
        self.turnId = turnId
    }
    public func auditDetail(answer: BridgeResponse?) -> String? { "from turn \(turnId.prefix(64))" }
}
