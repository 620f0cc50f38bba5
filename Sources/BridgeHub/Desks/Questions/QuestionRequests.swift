import BridgeProtocol
import Logging

/// The question desk's own request: `answerInput` checks the answer against the question (``QuestionDesk``), sends
/// it to Codex, and tells everyone (`inputResolved`, journaled, with who answered). Asking and withdrawing are
/// Codex's side (ThreadHub+Questions).
struct QuestionRequests: RequestCollection {
    func register(into routes: inout RequestRoutes) {
        // The device's name is looked up first; the question is checked, answered and resolved in one step after it.
        routes.on(.answerInput) { (services, answer: AnswerInput, context) in
            let deviceId = context.session.principal.deviceId
            let deviceName = await services.deviceName(deviceId)
            let resolved = try await services.hub.answerInput(answer, deviceId: deviceId, deviceName: deviceName)
            context.session.logger.info(
                "Input answered",
                metadata: ["bridge.input.id": "\(answer.requestId)", "bridge.input.action": "\(resolved.action.rawValue)"])
            return .accepted(Accepted(threadId: resolved.threadId, requestId: answer.requestId))
        }
    }
}
