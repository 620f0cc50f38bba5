import BridgeProtocol

extension ThreadHub {
    func writeCommitMessage(_ threadId: String, cwd: String) async throws -> CommitMessage { throw HubError(.internal, "todo") }
    func runCommand(_ run: RunCommand, cwd: String, policy: TurnPolicy, session: ClientSession) async throws -> Accepted {
        throw HubError(.internal, "todo")
    }
    func stopCommand(_ stop: StopCommand) async throws -> Accepted { throw HubError(.internal, "todo") }
    func removeWorktree(_ remove: RemoveWorktree, cwd: String) async throws -> Accepted { throw HubError(.internal, "todo") }
}
