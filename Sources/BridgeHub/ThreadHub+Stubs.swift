import BridgeProtocol

extension ThreadHub {
    func writeCommitMessage(_ threadId: String, cwd: String) async throws -> CommitMessage { throw HubError(.internal, "todo") }
    func removeWorktree(_ remove: RemoveWorktree, cwd: String) async throws -> Accepted { throw HubError(.internal, "todo") }
}
