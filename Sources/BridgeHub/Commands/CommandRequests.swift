import BridgeProtocol
import Logging

/// `runCommand` and `stopCommand`: a `!command` in the thread's directory, in Codex's sandbox (``CommandService``).
/// The hub journals the start as it accepts the run, in one step (the run's output, which the service's channel
/// brings, cannot precede it); stopping runs beside the hub.
struct CommandRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.onHub(.runCommand) { (hub, run: RunCommand, context) in
            let cwd = context.directory
            let (runId, command) = try hub.commands.start(run, cwd: cwd, sandbox: context.policy.sandbox)
            let threadId = run.threadId
            let deviceId = context.session.principal.deviceId
            hub.publish(threadId: threadId) { seq in
                .commandStarted(CommandStarted(seq: seq, threadId: threadId, runId: runId, command: command, cwd: cwd, deviceId: deviceId))
            }
            context.session.logger.info("Command started", metadata: ["bridge.thread.id": "\(threadId)", "bridge.command.run": "\(runId)"])
            return .accepted(Accepted(threadId: threadId, runId: runId))
        }
        routes.on(.stopCommand) { (services, stop: StopCommand, _) in
            try await services.commands.stop(stop)
            return .accepted(Accepted(threadId: stop.threadId, runId: stop.runId))
        }
    }
}
