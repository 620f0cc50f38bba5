import BridgeProtocol

/// `runCommand` and `stopCommand`: a `!command` in the thread's directory, in Codex's sandbox.
struct CommandRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.runCommand) { (hub, run: RunCommand, context) in
            .accepted(try await hub.runCommand(run, cwd: context.directory, policy: context.policy, session: context.session))
        }
        routes.on(.stopCommand) { (hub, stop: StopCommand, _) in .accepted(try await hub.stopCommand(stop)) }
    }
}
