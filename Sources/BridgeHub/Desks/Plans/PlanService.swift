import BridgeProtocol
import BridgeStore
import CodexControl
import Logging
import Synchronization

/// Plan mode and plans beside the hub, not in it: every turn this bridge starts goes through ``startTurn(_:)``,
/// which names the thread's collaboration mode (the one the request chose, else the one the thread remembers) so
/// that plan mode survives a restart of Codex or of the bridge; `turn/plan/updated` plans are kept per turn and
/// returned with the thread. The ``PlanDesk`` sits behind a lock: the hub's event step updates it without a hop,
/// and turns start without the hub's executor.
final class PlanService: Sendable {
    private let desk = Mutex(PlanDesk())
    private let store: ThreadPlanStore
    private let codex: any CodexPort
    private let timeout: Duration
    private let logger: Logger

    init(store: ThreadPlanStore, codex: any CodexPort, timeout: Duration, logger: Logger) {
        self.store = store
        self.codex = codex
        self.timeout = timeout
        self.logger = logger
    }

    /// Starts a turn (`turn/start`) with the thread's collaboration mode; → the turn's id. A mode the request chose
    /// is remembered once Codex accepted the turn.
    func startTurn(_ start: TurnStart) async throws -> String {
        let mode = start.collaborationMode ?? rememberedMode(of: start.threadId)
        var codexMode: CodexCollaborationMode?
        if let mode {
            let settings = try await modelSettings(of: start.threadId, model: start.model, effort: start.effort)
            codexMode = CodexCollaborationMode(mode: mode.rawValue, model: settings.model, effort: settings.effort)
        }
        let turnId = try await codex.turnStart(
            threadId: start.threadId, text: start.text, sandbox: start.policy.sandbox, approvalPolicy: start.policy.approvalPolicy,
            model: start.model, effort: start.effort, extraInput: start.extraInput, collaborationMode: codexMode, timeout: timeout)
        learn(threadId: start.threadId, model: start.model, effort: start.effort)
        if let chosen = start.collaborationMode { rememberMode(chosen, of: start.threadId) }
        return turnId
    }

    /// The mode `threadId`'s turns start with when a request names none (looked up on disk once).
    func rememberedMode(of threadId: String) -> CollaborationMode? {
        if let known = desk.withLock({ $0.mode(of: threadId) }) { return known }
        let stored: CollaborationMode?
        do {
            stored = try store.mode(of: threadId)
        } catch {
            logger.warning("Cannot read a thread's collaboration mode", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
            return nil
        }
        desk.withLock { $0.remember(stored, of: threadId) }
        return stored
    }

    /// Remembers the mode a request chose (also when it steered a running turn: the thread's next turns use it).
    func rememberMode(_ mode: CollaborationMode, of threadId: String) {
        guard rememberedMode(of: threadId) != mode else { return }
        desk.withLock { $0.remember(mode, of: threadId) }
        do {
            try store.remember(mode, for: threadId)
        } catch {
            logger.warning(
                "Cannot remember a thread's collaboration mode", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
        }
    }

    /// Learns a thread's model and effort from a Codex thread object (`thread/started`, `thread/read`).
    func learn(thread: JSONValue) { desk.withLock { $0.learn(thread: thread) } }

    /// A turn started (or a thread resumed) with this model and effort: the thread keeps them.
    func learn(threadId: String, model: String?, effort: String?) {
        desk.withLock { $0.learn(threadId: threadId, model: model, effort: effort) }
    }

    /// Follows one Codex notification (in the hub's event step, after it was published): a `turn/plan/updated`'s
    /// plan is kept; a failure to write is logged, the event still went out.
    func observe(_ kind: EventKind, params: JSONValue, threadId: String) {
        guard let plan = desk.withLock({ $0.observe(kind, params: params, threadId: threadId) }) else { return }
        do {
            try store.save(plan, of: threadId)
        } catch {
            logger.warning("Cannot keep a turn's plan", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
        }
    }

    /// The plans kept for `threadId`'s turns (none when they cannot be read: logged).
    func plans(of threadId: String) -> [TurnPlan] {
        do {
            return try store.plans(of: threadId)
        } catch {
            logger.warning("Cannot read a thread's plans", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
            return []
        }
    }

    /// The model and effort a collaboration mode must name for `threadId`: the request's, else what Codex reported
    /// for the thread (asking it with `thread/read` when nothing was reported yet).
    private func modelSettings(of threadId: String, model: String?, effort: String?) async throws -> PlanDesk.ModelSettings {
        if model == nil, desk.withLock({ $0.models[threadId] == nil }) {
            learn(thread: try await codex.threadRead(threadId: threadId, includeTurns: false, timeout: timeout))
        }
        return try desk.withLock { try $0.settings(of: threadId, model: model, effort: effort) }
    }
}
