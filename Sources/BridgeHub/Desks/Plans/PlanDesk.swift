import BridgeProtocol
import CodexControl

/// What the hub knows for plan mode and plans, as a value: the collaboration mode each thread's turns start with
/// (a cache of ``ThreadPlanStore``), and the model and effort Codex runs each thread with (a collaboration mode
/// names them: Codex lets the mode's settings take precedence over the turn's).
struct PlanDesk {
    /// The model and effort a thread runs with, as Codex last reported them.
    struct ModelSettings: Hashable {
        var model: String
        var effort: String?
    }

    /// Threads whose remembered mode was looked up (a nil entry: none).
    private var modes: [String: CollaborationMode?] = [:]
    private(set) var models: [String: ModelSettings] = [:]

    /// The remembered mode of `threadId`: `.some(nil)` when known to have none, nil when not looked up yet.
    func mode(of threadId: String) -> CollaborationMode?? { modes[threadId] }

    mutating func remember(_ mode: CollaborationMode?, of threadId: String) { modes[threadId] = .some(mode) }

    /// Learns a thread's model and effort from a Codex thread object (`thread/started`, `thread/read`).
    mutating func learn(thread: JSONValue) {
        guard let id = thread["id"]?.stringValue, let model = thread["model"]?.stringValue, !model.isEmpty else { return }
        models[id] = ModelSettings(model: model, effort: thread["reasoningEffort"]?.stringValue)
    }

    /// A turn started with this model and effort (given by the client): the thread keeps them.
    mutating func learn(threadId: String, model: String?, effort: String?) {
        guard let model = model ?? models[threadId]?.model else { return }
        models[threadId] = ModelSettings(
            model: model, effort: effort ?? (model == models[threadId]?.model ? models[threadId]?.effort : nil))
    }

    /// The model and effort a collaboration mode must name for `threadId`: the request's, else what Codex
    /// reported (an effort only for the same model); `codex_error` when no model is known.
    func settings(of threadId: String, model: String?, effort: String?) throws -> ModelSettings {
        guard let known = model ?? models[threadId]?.model else {
            throw HubError(.codexError, "Codex did not say which model thread \(threadId) uses; name one with model")
        }
        let sameModel = models[threadId]?.model == known
        return ModelSettings(model: known, effort: effort ?? (sameModel ? models[threadId]?.effort : nil))
    }

    /// Follows Codex's notifications: the model and effort it reports for a thread (`thread/started`,
    /// `thread/settings/updated`); returns the plan of a `turn/plan/updated`, to be kept.
    mutating func observe(_ kind: EventKind, params: JSONValue, threadId: String) -> TurnPlan? {
        switch kind {
        case .codex(.threadStarted):
            if let thread = params["thread"] { learn(thread: thread) }
        case .codex(.threadSettingsUpdated):
            let settings = params["threadSettings"]
            if let model = settings?["model"]?.stringValue, !model.isEmpty {
                models[threadId] = ModelSettings(model: model, effort: settings?["effort"]?.stringValue)
            }
        case .codex(.turnPlanUpdated):
            return Self.plan(from: params)
        default:
            break
        }
        return nil
    }

    /// A `turn/plan/updated`'s plan; nil without a turn id or a list of steps.
    static func plan(from params: JSONValue) -> TurnPlan? {
        guard let turnId = params["turnId"]?.stringValue, let steps = params["plan"]?.arrayValue else { return nil }
        let plan = steps.compactMap { step -> PlanStep? in
            guard let text = step["step"]?.stringValue else { return nil }
            return PlanStep(step: text, status: step["status"]?.stringValue ?? "pending")
        }
        return TurnPlan(turnId: turnId, explanation: params["explanation"]?.stringValue, plan: plan)
    }
}
