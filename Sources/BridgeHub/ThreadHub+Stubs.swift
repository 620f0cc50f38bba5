import BridgeProtocol

extension ThreadHub {
    func writeCommitMessage(_ threadId: String, cwd: String) async throws -> CommitMessage { throw HubError(.internal, "todo") }
}
