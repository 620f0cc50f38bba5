import BridgeProtocol
import CodexControl

/// `listSkills` (Codex `skills/list`): the enabled skills of a thread's directory, names and descriptions cut to
/// size (a skill's text is the agent's or a repository's, untrusted).
struct SkillCatalog: Sendable {
    let codex: any CodexPort
    let timeout: Duration

    /// Most skills listed.
    static let maxSkills = 500

    func list(_ list: ListSkills, cwd: String) async throws -> SkillList {
        let result = try await codex.skillsList(cwd: cwd, timeout: timeout)
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
