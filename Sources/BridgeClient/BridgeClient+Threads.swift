import BridgeProtocol

/// Typed calls for a thread's history and tools (issue 15): archived threads, forks, skills.
extension BridgeClient {
    /// `listThreads {archived: true}`: the archived threads (newest first), one page.
    public func listArchivedThreads(limit: Int? = nil, cursor: String? = nil) async throws -> ThreadList {
        let answer = try await send(BridgeRequest(.listThreads, ListThreads(limit: limit, cursor: cursor, archived: true)))
        guard case .threads(let list) = answer else { throw UnexpectedAnswer(expected: "threads", got: answer.kind) }
        return list
    }

    /// `forkThread`: a new thread with `threadId`'s history (through `turnId` when given); this client is
    /// subscribed to it.
    public func forkThread(threadId: String, turnId: String? = nil) async throws -> ThreadForked {
        let answer = try await send(BridgeRequest(.forkThread, ForkThread(threadId: threadId, turnId: turnId)))
        guard case .threadForked(let forked) = answer else { throw UnexpectedAnswer(expected: "threadForked", got: answer.kind) }
        return forked
    }

    /// `listSkills`: the skills Codex offers in the thread's directory.
    public func listSkills(threadId: String) async throws -> SkillList {
        let answer = try await send(BridgeRequest(.listSkills, ListSkills(threadId: threadId)))
        guard case .skills(let skills) = answer else { throw UnexpectedAnswer(expected: "skills", got: answer.kind) }
        return skills
    }
}
