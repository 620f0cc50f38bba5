/// `forkThread {threadId, turnId?}`: a new thread with the history of `threadId` (through `turnId`, inclusive,
/// when given; that turn must have ended), in the same directory and with the same sandbox and approval policy.
public struct ForkThread: ThreadPayload {
    public var threadId: String
    public var turnId: String?
    public init(threadId: String, turnId: String? = nil) {
        self.threadId = threadId
        self.turnId = turnId
    }
}

extension ForkThread {
    public func auditDetail(answer: BridgeResponse?) -> String? { threadId }
}

/// `threadForked {threadId, forkedFrom, cwd}`: the answer to `forkThread`; the client is subscribed to the new
/// thread, which waits for a `sendMessage`.
public struct ThreadForked: Codable, Sendable, Hashable {
    public var threadId: String
    public var forkedFrom: String
    public var cwd: String
    public init(threadId: String, forkedFrom: String, cwd: String) {
        self.threadId = threadId
        self.forkedFrom = forkedFrom
        self.cwd = cwd
    }
}

/// `listSkills {threadId}`: the skills Codex offers in the thread's directory.
public struct ListSkills: ThreadPayload {
    public var threadId: String
    public init(threadId: String) { self.threadId = threadId }
}

/// `skills {threadId, skills:[{name, description}]}`: the answer to `listSkills`.
public struct SkillList: Codable, Sendable, Hashable {
    /// One skill: its name (what `$name` in a message invokes) and what it does.
    public struct Skill: Codable, Sendable, Hashable {
        public var name: String
        public var description: String
        public init(name: String, description: String) {
            self.name = name
            self.description = description
        }
    }
    public var threadId: String
    public var skills: [Skill]
    public init(threadId: String, skills: [Skill]) {
        self.threadId = threadId
        self.skills = skills
    }
}
