import BridgeProtocol
import CodexControl

/// The actions Codex's automatic reviewer denied (`item/autoApprovalReview/completed` with status `denied`), kept
/// so that a person with `approve` can override one (`approveDeniedAction`, Codex
/// `thread/approveGuardianDeniedAction`). A denied action stays denied unless a person acts; an override is taken
/// once. At most ``limit`` denials are kept (the oldest go first).
struct AutoReviewDesk {
    /// One denial: its thread and the event Codex wants back.
    struct Denial: Sendable, Hashable {
        let threadId: String
        /// Codex's core `GuardianAssessmentEvent`, as `thread/approveGuardianDeniedAction` reads it.
        let event: JSONValue
    }

    static let limit = 200

    private var denials: [String: Denial] = [:]
    private var order: [String] = []

    /// Follows Codex's notifications: keeps a denial.
    mutating func observe(_ kind: EventKind, params: JSONValue, threadId: String) {
        guard kind == .codex(.itemAutoApprovalReviewCompleted), params["review"]?["status"]?.stringValue == "denied",
            let reviewId = params["reviewId"]?.stringValue, let event = Self.coreEvent(params)
        else { return }
        if denials[reviewId] == nil { order.append(reviewId) }
        denials[reviewId] = Denial(threadId: threadId, event: event)
        while order.count > Self.limit { denials[order.removeFirst()] = nil }
    }

    /// The denial `reviewId` of `threadId`, if it is kept.
    func denial(_ reviewId: String, of threadId: String) -> Denial? {
        guard let denial = denials[reviewId], denial.threadId == threadId else { return nil }
        return denial
    }

    /// Forgets a denial (overridden).
    mutating func remove(_ reviewId: String) {
        denials[reviewId] = nil
        order.removeAll { $0 == reviewId }
    }

    /// Takes the denial `reviewId` of `threadId` for an override (a second override finds none meanwhile).
    mutating func take(_ reviewId: String, of threadId: String) -> Denial? {
        guard let denial = denial(reviewId, of: threadId) else { return nil }
        remove(reviewId)
        return denial
    }

    /// Keeps a taken denial again: its override failed, a person may try again.
    mutating func restore(_ reviewId: String, _ denial: Denial) {
        if denials[reviewId] == nil { order.append(reviewId) }
        denials[reviewId] = denial
        while order.count > Self.limit { denials[order.removeFirst()] = nil }
    }

    /// Codex's app-server notification (camelCase, v2) as the core event its override method parses (snake_case):
    /// `{id, target_item_id, turn_id, status, risk_level, user_authorization, rationale, decision_source, action}`,
    /// the action's keys and its `source` in snake_case (`unifiedExec` → `unified_exec`).
    static func coreEvent(_ params: JSONValue) -> JSONValue? {
        guard let reviewId = params["reviewId"]?.stringValue, let turnId = params["turnId"]?.stringValue,
            case .object(let action)? = params["action"]
        else { return nil }
        let review = params["review"]
        var event: [String: JSONValue] = ["id": .string(reviewId), "turn_id": .string(turnId), "status": "denied"]
        if let target = params["targetItemId"]?.stringValue { event["target_item_id"] = .string(target) }
        for (key, value) in [
            ("risk_level", review?["riskLevel"]), ("user_authorization", review?["userAuthorization"]),
            ("rationale", review?["rationale"]), ("decision_source", params["decisionSource"]),
        ] {
            if let text = value?.stringValue { event[key] = .string(key == "decision_source" ? snakeCase(text) : text) }
        }
        var core: [String: JSONValue] = [:]
        for (key, value) in action {
            if key == "source", let text = value.stringValue { core[key] = .string(snakeCase(text)) } else { core[snakeCase(key)] = value }
        }
        event["action"] = .object(core)
        return .object(event)
    }

    /// `unifiedExec` → `unified_exec`.
    static func snakeCase(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase {
                out += "_" + character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }
}
