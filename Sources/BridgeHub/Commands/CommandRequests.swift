import BridgeProtocol
import Logging

/// `runCommand` and `stopCommand`: a `!command` in the thread's directory, in Codex's sandbox (``CommandService``),
/// beside the hub. A run takes its slot, the hub journals its start (`commandStarted`, one step of its port), and
/// only then does it run: the run's output, which the service's channel brings, cannot precede its start.
struct CommandRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        routes.on(.runCommand) { (services, run: RunCommand, context) in
            let cwd = context.directory
            let (runId, command) = try services.commands.reserve(run)
            let threadId = run.threadId
            await services.hub.commandStarted(
                CommandStarted(
                    seq: 0, threadId: threadId, runId: runId, command: command, cwd: cwd, deviceId: context.session.principal.deviceId))
            services.commands.launch(runId, command: command, cwd: cwd, sandbox: context.policy.sandbox)
            context.session.logger.info("Command started", metadata: ["bridge.thread.id": "\(threadId)", "bridge.command.run": "\(runId)"])
            return .accepted(Accepted(threadId: threadId, runId: runId))
        }
        routes.on(.stopCommand) { (services, stop: StopCommand, _) in
            try await services.commands.stop(stop)
            return .accepted(Accepted(threadId: stop.threadId, runId: stop.runId))
        }
    }
}
