import BridgeProtocol
import CodexControl

/// Which threads are sub-agents Codex spawned, whose, and how each is doing, as a value that returns what to
/// announce on the parent (`bridge/subAgent`).
///
/// Codex 0.163 sends a spawning client no `thread/started` for a sub-agent; what it sends: the parent's
/// `collabAgentToolCall` item (`tool: spawnAgent`, `receiverThreadIds`, `agentsStates`), then the child's own
/// turn events, whose `turn/started` names the parent's turn as `rootTurnId`. Either tells the child apart.
struct SubAgentTracker {
    /// How a sub-agent is doing, as the bridge announces it.
    enum Status: String, Sendable, Hashable {
        /// Spawned, not started yet.
        case pending
        case running
        /// Its turn completed.
        case done
        case failed
        case interrupted
        /// Closed by its parent.
        case closed
    }

    struct Agent: Hashable {
        var parentThreadId: String
        var nickname: String?
        var role: String?
        var status: Status?
    }

    /// What to announce on the parent thread.
    struct Update: Hashable {
        var parentThreadId: String
        var agentThreadId: String
        var agent: Agent

        /// The `bridge/subAgent` event's data.
        var eventData: JSONValue {
            var data: [String: JSONValue] = ["threadId": .string(parentThreadId), "agentThreadId": .string(agentThreadId)]
            if let status = agent.status { data["status"] = .string(status.rawValue) }
            if let nickname = agent.nickname { data["agentNickname"] = .string(nickname) }
            if let role = agent.role { data["agentRole"] = .string(role) }
            return .object(data)
        }
    }

    private(set) var agents: [String: Agent] = [:]
    /// The turn `review/start` answered, by thread, until that turn completes. A Codex whose `Turn` has no
    /// `rootTurnId` (0.160) starts a review's inner turn under another id, while the review's items and its
    /// `turn/completed` carry this one: its `turn/started` is given this one too (issue 46 item 7).
    private var reviewTurns: [String: String] = [:]

    mutating func reviewStarted(_ threadId: String, turnId: String) { reviewTurns[threadId] = turnId }
    /// Sub-agents whose thread was looked up already (``SubAgentLookup``), once each.
    private var lookedUp: Set<String> = []

    func isSubAgent(_ threadId: String) -> Bool { agents[threadId] != nil }

    /// The sub-agents of `parentThreadId`.
    func children(of parentThreadId: String) -> [String] {
        agents.filter { $0.value.parentThreadId == parentThreadId }.map(\.key).sorted()
    }

    /// The `turnId` an event of `threadId` carries: Codex's `turnId`, else its turn's. A review's inner turn
    /// names the turn `review/start` answered as `rootTurnId`, and that is the thread's turn for clients; a
    /// sub-agent's turn names its parent's turn there (a turn `turnOwner` finds running on another thread), which
    /// is not.
    func eventTurnId(_ params: JSONValue, threadId: String, turnOwner: (String) -> String?) -> String? {
        if let turnId = params["turnId"]?.stringValue { return turnId }
        let turn = params["turn"]
        let id = turn?["id"]?.stringValue
        guard let root = turn?["rootTurnId"]?.stringValue, root != id else {
            if turn?["rootTurnId"] == nil, id != nil, let review = reviewTurns[threadId] { return review }
            return id
        }
        if isSubAgent(threadId) || turnOwner(root) != nil { return id }
        return root
    }

    /// Whether `update`'s sub-agent is to be looked up now: its nickname is unknown and it was not looked up
    /// before (it is then counted as looked up).
    mutating func claimLookup(for update: Update) -> Bool {
        guard update.agent.nickname == nil else { return false }
        return lookedUp.insert(update.agentThreadId).inserted
    }

    /// The sub-agents of `parentThreadId` as `readThread` shows them.
    func shown(under parentThreadId: String) -> [SubAgent] {
        children(of: parentThreadId).compactMap { child in
            agents[child].map {
                SubAgent(agentThreadId: child, status: $0.status?.rawValue, agentNickname: $0.nickname, agentRole: $0.role)
            }
        }
    }

    /// Learns (or updates) a sub-agent; the update to announce when something changed.
    mutating func learn(_ child: String, parent: String, nickname: String? = nil, role: String? = nil, status: Status? = nil) -> Update? {
        guard child != parent else { return nil }
        var agent = agents[child] ?? Agent(parentThreadId: parent)
        let before = agents[child]
        agent.nickname = nickname ?? agent.nickname
        agent.role = role ?? agent.role
        agent.status = status ?? agent.status
        agents[child] = agent
        return before == agent ? nil : Update(parentThreadId: agent.parentThreadId, agentThreadId: child, agent: agent)
    }

    /// Follows one Codex notification of `threadId`. `turnOwner` tells which other thread runs a given turn (a
    /// sub-agent's first `turn/started` names its parent's running turn).
    mutating func observe(_ kind: EventKind, params: JSONValue, threadId: String, turnOwner: (String) -> String?) -> [Update] {
        switch kind {
        case .codex(.itemStarted), .codex(.itemCompleted):
            guard let item = params["item"], item["type"]?.stringValue == "collabAgentToolCall" else { return [] }
            let sender = item["senderThreadId"]?.stringValue ?? threadId
            let spawns = item["tool"]?.stringValue == "spawnAgent"
            let states = item["agentsStates"]?.objectValue ?? [:]
            var updates: [Update] = []
            for receiver in (item["receiverThreadIds"]?.arrayValue ?? []).compactMap(\.stringValue) {
                let status = states[receiver]?["status"]?.stringValue.flatMap(Self.status(collab:))
                guard spawns || agents[receiver]?.parentThreadId == sender else { continue }
                if let update = learn(receiver, parent: sender, status: status) { updates.append(update) }
            }
            return updates
        case .codex(.turnStarted):
            if agents[threadId] == nil {
                let turn = params["turn"]
                guard let root = turn?["rootTurnId"]?.stringValue, root != turn?["id"]?.stringValue, let parent = turnOwner(root),
                    parent != threadId
                else { return [] }
                return learn(threadId, parent: parent, status: .running).map { [$0] } ?? []
            }
            return learn(threadId, parent: agents[threadId]!.parentThreadId, status: .running).map { [$0] } ?? []
        case .codex(.turnCompleted):
            reviewTurns[threadId] = nil
            guard let agent = agents[threadId] else { return [] }
            let status: Status =
                switch params["turn"]?["status"]?.stringValue {
                case "failed": .failed
                case "interrupted": .interrupted
                default: .done
                }
            return learn(threadId, parent: agent.parentThreadId, status: status).map { [$0] } ?? []
        case .turnFailed:
            reviewTurns[threadId] = nil
            guard let agent = agents[threadId] else { return [] }
            return learn(threadId, parent: agent.parentThreadId, status: .failed).map { [$0] } ?? []
        case .codex(.threadStarted):
            let thread = params["thread"]
            guard let parent = thread?["parentThreadId"]?.stringValue else { return [] }
            let update = learn(
                threadId, parent: parent, nickname: thread?["agentNickname"]?.stringValue, role: thread?["agentRole"]?.stringValue)
            return update.map { [$0] } ?? []
        default:
            return []
        }
    }

    /// A `collabAgentToolCall`'s agent state in the bridge's words.
    static func status(collab: String) -> Status? {
        switch collab {
        case "pendingInit": .pending
        case "running": .running
        case "completed": .done
        case "errored", "notFound": .failed
        case "interrupted": .interrupted
        case "shutdown": .closed
        default: nil
        }
    }

    /// `thread/list` source kinds of the sub-threads `listThreads` shows: spawned sub-agents, and with `includeInternal`
    /// the reviews, compactions and other sub-threads Codex runs for itself.
    static func listedSourceKinds(includeInternal: Bool) -> [String] {
        includeInternal ? ["subAgentThreadSpawn", "subAgentReview", "subAgentCompact", "subAgentOther"] : ["subAgentThreadSpawn"]
    }
}
