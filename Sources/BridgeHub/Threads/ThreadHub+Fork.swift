import BridgeProtocol
import BridgeStore
import CodexControl
import Foundation
import Logging

/// `forkThread` (Codex `thread/fork`) and `listSkills` (Codex `skills/list`). The gate has admitted the source
/// thread (its directory inside the roots); the fork runs in that directory with the source's policy (as the
/// gate allows it now) and is remembered like a thread this bridge started.
extension ThreadHub {
    func forkThread(_ fork: ForkThread, cwd: String, policy turnPolicy: TurnPolicy, session: ClientSession) async throws -> ThreadForked {
        if let turnId = fork.turnId {
            guard !turnId.isEmpty, turnId.utf8.count <= Self.maxThreadIdBytes else {
                throw HubError(.badRequest, "turnId must be 1 to \(Self.maxThreadIdBytes) bytes")
            }
            if book.runningTurn(of: fork.threadId) == turnId {
                throw HubError(.conflict, "turn \(turnId) is still running; fork through an ended turn")
            }
        }
        let before = events.lastSeq
        let result: JSONValue
        do {
            result = try await codex.threadFork(
                threadId: fork.threadId, cwd: cwd, sandbox: turnPolicy.sandbox, approvalPolicy: turnPolicy.approvalPolicy,
                throughTurn: fork.turnId, timeout: policy.codexTimeout)
        } catch let error as CodexError where error.code == .rpc && fork.turnId != nil {
            throw HubError(.badRequest, "cannot fork through turn \(fork.turnId?.prefix(64) ?? ""): \(error.message)")
        }
        guard let threadId = result["thread"]?["id"]?.stringValue else {
            throw HubError(.codexError, "thread/fork answered without a thread")
        }
        book.loaded(threadId, cwd: cwd, generation: generation, policy: turnPolicy)
        do {
            try await storage.threadPolicies.remember(
                .init(sandbox: turnPolicy.sandbox, approvalPolicy: turnPolicy.approvalPolicy), for: threadId)
        } catch {
            logger.warning("Cannot remember a thread's policy", metadata: ["bridge.thread.id": "\(threadId)", "error": "\(error)"])
        }
        let covered = events.fanOut.covers(session.id, "*")
        _ = await subscribeResuming(session, to: threadId, afterSeq: covered ? nil : before)
        session.logger.info("Thread forked", metadata: ["bridge.thread.id": "\(threadId)", "bridge.thread.source": "\(fork.threadId)"])
        return ThreadForked(threadId: threadId, forkedFrom: fork.threadId, cwd: cwd)
    }

    /// Most skills listed.
    static let maxSkills = 500

    func listSkills(_ list: ListSkills, cwd: String) async throws -> SkillList {
        let result = try await codex.skillsList(cwd: cwd, timeout: policy.codexTimeout)
        var skills: [SkillList.Skill] = []
        for entry in result["data"]?.arrayValue ?? [] {
            for skill in entry["skills"]?.arrayValue ?? [] {
                guard let name = skill["name"]?.stringValue, skill["enabled"]?.boolValue ?? true else { continue }
                let description = skill["shortDescription"]?.stringValue ?? skill["description"]?.stringValue ?? ""
                skills.append(SkillList.Skill(name: String(name.prefix(200)), description: String(description.prefix(2000))))
            }
        }
        return SkillList(threadId: list.threadId, skills: Array(skills.prefix(Self.maxSkills)))
    }
}
